"""Finding DER functions and the curve block from the names of tables that list only points,
with AN2018-style names (the profile IEEE 1815.2 grew from) and a few variants."""

from __future__ import annotations

from gridwire.der.derive import derive_curve_block, derive_functions
from gridwire.der.functions import CurveBlock, CurveRef
from gridwire.der.points import Address, Kind, Point
from gridwire.der.text import EnumValue

# The curve types as AN2018 numbers them (AO245).
TYPES = (
    EnumValue(2, "Volt-Var modes VV11-VV12"),
    EnumValue(3, "Frequency-Watt mode FW22"),
    EnumValue(4, "Watt-VAr mode WP42"),
    EnumValue(5, "Voltage-Watt modes VW51-VW52"),
)


def an2018_like() -> list[Point]:
    def bo(i: int, name: str, bi: int, purpose: str) -> Point:
        return Point(Kind.BO, i, name, purpose=purpose, associated=Address(Kind.BI, bi))

    return [
        bo(25, "Enable Volt-Watt Mode", 77, "Function"),
        bo(29, "Enable Volt-VAR Control Mode", 81, "Function"),
        bo(7, "Enable Sensed Grid Config Detection", 26, "Settings"),
        Point(Kind.BI, 44, "Supports Volt-Watt Mode"),
        Point(Kind.BI, 48, "Supports Volt-VAr Control Mode"),
        Point(Kind.BI, 77, "Operating Mode - Volt-Watt Enabled"),
        Point(Kind.BI, 81, "Operating Mode - Volt-VAR Control Enabled"),
        Point(Kind.BI, 26, "Sensed Grid Config Detection Enabled"),
        Point(
            Kind.AO,
            173,
            "Volt-Watt Curve Index",
            section="Volt-Watt Mode settings",
            purpose="Function",
        ),
        Point(
            Kind.AO,
            174,
            "Volt-Watt Filter Time",
            section="Volt-Watt Mode settings",
            purpose="Function",
        ),
        Point(
            Kind.AO,
            217,
            "Volt-VAr Curve Index. Which curve the mode follows",
            section="Volt-VAr Control Mode settings",
            purpose="Function",
        ),
    ]


def test_functions_from_an2018_style_names() -> None:
    functions = {f.key: f for f in derive_functions(an2018_like(), TYPES)}
    # BO7 starts with "Enable" but no "Supports ..." input matches it: not a function.
    assert set(functions) == {"volt-watt", "volt-var-control"}
    vw = functions["volt-watt"]
    assert (vw.name, vw.enable, vw.supports, vw.enabled) == ("Volt-Watt", 25, 44, 77)
    # Both enables have purpose "Function", so settings come by section.
    assert vw.settings == (173, 174)
    # "Voltage-Watt modes" is a volt-watt curve: voltage reads as volt.
    assert vw.curves == (CurveRef(173, (5,)),)
    vv = functions["volt-var-control"]
    assert (vv.name, vv.settings, vv.curves) == ("Volt-VAR Control", (217,), (CurveRef(217, (2,)),))


def test_supports_by_purpose_when_names_differ() -> None:
    points = [
        Point(Kind.BO, 1, "Enable the pump", purpose="Pump", associated=Address(Kind.BI, 3)),
        Point(Kind.BI, 2, "Support for pumping", purpose="Pump"),
        Point(Kind.BI, 3, "Pump enabled", purpose="Pump"),
        Point(Kind.AO, 4, "Pump speed", purpose="Pump"),
    ]
    (pump,) = derive_functions(points)
    assert (pump.key, pump.name, pump.supports, pump.enabled, pump.settings) == (
        "pump",
        "pump",
        2,
        3,
        (4,),
    )


def test_keys_stay_distinct() -> None:
    points = [
        Point(Kind.BO, 1, "Enable X"),
        Point(Kind.BO, 2, "Enable X. Again"),
        Point(Kind.BI, 3, "Supports X"),
    ]
    assert [f.key for f in derive_functions(points)] == ["x", "x-2"]


def window(selector: int = 10, readback: int = 20, pairs: int = 2) -> list[Point]:
    points = [
        Point(
            Kind.AO,
            selector,
            "Curve Edit Selector. Which curve",
            associated=Address(Kind.AI, readback),
        )
    ]
    points += [Point(Kind.AO, selector + i, f"o{i}") for i in range(1, 5 + 2 * pairs)]
    points += [Point(Kind.AI, readback + i, f"i{i}") for i in range(0, 5 + 2 * pairs)]
    return points


def test_curve_block_from_names() -> None:
    points = [*window(), Point(Kind.BI, 107, "Selected Curve is Referenced by a Mode")]
    assert derive_curve_block(points) == CurveBlock(10, 20, 107, 2)


def test_curve_block_mirror_named_by_the_input() -> None:
    points = window()
    points[0] = Point(Kind.AO, 10, "Curve selector")
    points = [
        p
        if p.address != Address(Kind.AI, 20)
        else Point(Kind.AI, 20, "Curve selector", associated=Address(Kind.AO, 10))
        for p in points
    ]
    assert derive_curve_block(points) == CurveBlock(10, 20, None, 2)


def test_no_curve_block_when_the_window_is_incomplete() -> None:
    without_units = [p for p in window() if p.address != Address(Kind.AI, 23)]
    assert derive_curve_block(without_units) is None
    without_points = window(pairs=0)
    assert derive_curve_block(without_points) is None
    lone = [Point(Kind.AO, 10, "Curve selector")]
    assert derive_curve_block(lone) is None
