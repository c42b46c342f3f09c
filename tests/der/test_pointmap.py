"""The point map: lookups, mirrors, functions and groups for der.read, and the rules a map
keeps when it is built."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridwire.der.errors import MapError
from gridwire.der.functions import CurveBlock, CurveRef, DerFunction
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point
from gridwire.errors import RequestError
from tests.der.maps import small_map

MAP = small_map()


def addresses(points: tuple[Point, ...]) -> list[str]:
    return [str(p) for p in points]


def test_points_are_listed_by_kind_then_index() -> None:
    kinds = [p.kind.order for p in MAP.points]
    assert kinds == sorted(kinds)
    assert addresses(MAP.by_kind("CTR")) == ["CTR0", "CTR1"]
    assert MAP.get(Kind.AI, 537) is MAP.at("ai537") is MAP[Address(Kind.AI, 537)]
    assert MAP.at("nonsense") is None and MAP.get("AO", 12345) is None


def test_mirrors_both_ways() -> None:
    assert str(MAP.mirror(Address(Kind.AO, 0))) == "AI29"
    assert str(MAP.mirror(MAP.at("AI29"))) == "AO0"  # type: ignore[arg-type]
    assert MAP.mirror(Address(Kind.AI, 537)) is None


def test_one_sided_association_is_mirrored_back() -> None:
    points = [Point(Kind.BO, 1, "out", associated=Address(Kind.BI, 2)), Point(Kind.BI, 2, "in")]
    one_sided = PointMap(points, title="t")
    assert str(one_sided.mirror(Address(Kind.BI, 2))) == "BO1"


def test_name_of_an_object_by_its_api_type() -> None:
    assert MAP.name_of("ai", 537) == "System meter active power"
    assert MAP.name_of("frozen", 0) == "Energy delivered"
    assert MAP.name_of("frozen", 1) is None  # CTR1 has no frozen counterpart
    assert MAP.name_of("counter", 1) == "Starts counted"
    assert MAP.name_of("dbi", 0) is None and MAP.name_of("ai", 9999) is None


def test_a_function_claims_its_points() -> None:
    function = MAP.function("volt-var")
    assert function is not None
    # supports, enable, enabled, the setting and its mirror, and the input marked with BO29.
    assert addresses(MAP.function_points(function)) == [
        "BI48",
        "BI81",
        "BO29",
        "AI297",
        "AI301",
        "AO217",
    ]
    assert MAP.function_of(MAP.at("AI297")) is function  # type: ignore[arg-type]
    assert MAP.function_of(MAP.at("AI537")) is None  # type: ignore[arg-type]
    assert function.curve_types == (2,)


@pytest.mark.parametrize("text", ["volt-var", "VOLT-VAR", "bo29", "Volt-var enable"])
def test_group_names_a_function(text: str) -> None:
    assert addresses(MAP.group(text))[:3] == ["BI48", "BI81", "BO29"]


def test_group_by_purpose() -> None:
    assert addresses(MAP.group("monitoring")) == ["CTR0", "CTR1", "AI47", "AI537"]
    assert addresses(MAP.group("Settings")) == ["BI25", "BO6", "AI29", "AO0"]


def test_group_unknown_lists_what_there_is() -> None:
    with pytest.raises(
        RequestError,
        match=r"no function or purpose is named 'Weather' "
        r"\(functions: volt-var; purposes: .*Monitoring",
    ):
        MAP.group("Weather")


def test_two_functions_of_one_purpose_group_by_purpose() -> None:
    points = [
        Point(Kind.BO, 1, "A enable", purpose="Modes"),
        Point(Kind.BO, 2, "B enable", purpose="Modes"),
        Point(Kind.AI, 3, "Shared reading", purpose="Modes"),
    ]
    functions = [DerFunction("a", "A", "Modes", 1), DerFunction("b", "B", "Modes", 2)]
    two = PointMap(points, title="t", functions=functions)
    assert addresses(two.group("modes")) == ["BO1", "BO2", "AI3"]
    assert addresses(two.group("a")) == ["BO1"]


def test_describe() -> None:
    assert MAP.describe() == ("small: 23 points (BI 4, BO 2, CTR 2, AI 12, AO 3), 1 functions")


def error_of(points: list[Point], **kwargs: object) -> str:
    with pytest.raises(MapError) as caught:
        PointMap(points, title="t", **kwargs)  # type: ignore[arg-type]
    return str(caught.value)


def test_two_points_at_one_address() -> None:
    message = error_of([Point(Kind.AI, 1, "a"), Point(Kind.AI, 1, "b")])
    assert message == "two points are AI1: 'a' and 'b'"


def test_association_must_mirror_and_exist() -> None:
    wrong_kind = [Point(Kind.AO, 1, "a", associated=Address(Kind.BI, 1)), Point(Kind.BI, 1, "b")]
    assert "AO1 is associated with BI1, which is not a AI point" in error_of(wrong_kind)
    missing = [Point(Kind.AO, 1, "a", associated=Address(Kind.AI, 9))]
    assert error_of(missing) == "AO1 is associated with AI9, which is not in the map"


@pytest.mark.parametrize(
    ("point", "message"),
    [
        (Point(Kind.AI, 1, "a", event_class=4), "AI1: event_class is 0, 1, 2 or 3, not 4"),
        (Point(Kind.AI, 1, "a", multiplier=0.0), "AI1: the multiplier must be a finite number"),
        (Point(Kind.AI, 1, "a", minimum=5, maximum=1), "AI1: minimum 5 is above maximum 1"),
        (Point(Kind.AI, 1, "a", states=("x", "y")), "AI1: only a binary point has state names"),
        (Point(Kind.AI, 1, "a", frozen=True), "AI1: only a counter has a frozen counterpart"),
        (Point(Kind.AI, 1, " "), "AI1 has no name"),
        (Point(Kind.AI, -1, "a"), "AI-1: an index is 0 to 4294967295"),
    ],
)
def test_point_rules(point: Point, message: str) -> None:
    assert error_of([point]).startswith(message)


def test_function_rules() -> None:
    points = [Point(Kind.BO, 1, "en"), Point(Kind.AO, 2, "set")]
    assert error_of(points, functions=[DerFunction("f", "F", "", 1, supports=7)]) == (
        "function 'f' names BI7, which is not in the map"
    )
    twice = [DerFunction("f", "F", "", 1), DerFunction("f", "G", "", 1)]
    assert error_of(points, functions=twice) == "two functions have the key 'f'"
    stray_curve = DerFunction("f", "F", "", 1, settings=(2,), curves=(CurveRef(3),))
    assert "curve setting AO3 is not one of its settings" in error_of(
        points, functions=[stray_curve]
    )
    claimed = [Point(Kind.BO, 1, "en"), Point(Kind.BO, 5, "en2"), Point(Kind.AO, 2, "s", enable=5)]
    other = DerFunction("f", "F", "", 1, settings=(2,))
    assert "AO2 belongs to the function enabled by BO5" in error_of(claimed, functions=[other])


def test_curve_block_rules() -> None:
    window = [Point(Kind.AO, i, f"o{i}") for i in range(10, 17)]
    window += [Point(Kind.AI, i, f"i{i}") for i in range(20, 27)]
    block = CurveBlock(selector=10, readback=20, referenced=None, max_points=1)
    assert PointMap(window, title="t", curve_block=block).curve_block == block
    too_long = CurveBlock(selector=10, readback=20, referenced=None, max_points=2)
    assert (
        error_of(window, curve_block=too_long)
        == "the curve block names AO17, which is not in the map"
    )
    referenced = CurveBlock(selector=10, readback=20, referenced=3, max_points=1)
    assert (
        error_of(window, curve_block=referenced)
        == "the curve block names BI3, which is not in the map"
    )


def test_curve_block_layout() -> None:
    block = CurveBlock(selector=244, readback=328, referenced=107, max_points=100, curves=4)
    assert block.x_offset(1) == 5 and block.x_offset(100) == 203
    assert block.output(block.x_offset(1)) == 249 and block.input(block.x_offset(1) + 1) == 334
    assert block.outputs() == range(244, 449) and block.inputs() == range(328, 533)
    with pytest.raises(ValueError, match="numbered 1 to 100"):
        block.x_offset(101)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_a_group_or_refused(text: str) -> None:
    try:
        points = MAP.group(text)
    except RequestError:
        return
    assert points and all(isinstance(p, Point) for p in points)
