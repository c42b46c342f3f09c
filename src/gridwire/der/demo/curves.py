"""The demo map's curve block (selector AO244, the edit window to AO448 and AI532, the
referenced indicator BI107) and the curves the demo DER stores at start."""

from __future__ import annotations

from typing import Any

from gridwire.der.demo.builder import CURVE, INT32_MIN, WINDOW_POINTS, Builder
from gridwire.der.functions import Curve, CurveBlock
from gridwire.der.points import Kind

CURVE_TYPES = (
    "<0> Curve disabled <1> Not applicable <2> Volt-var <3> Frequency-watt <4> Watt-var "
    "<5> Volt-watt <6> Remain connected <7> Temperature <8> Pricing signal "
    "<9> High voltage ride-through, must trip <10> High voltage ride-through, momentary "
    "cessation <11> Low voltage ride-through, must trip <12> Low voltage ride-through, "
    "momentary cessation <13> High frequency ride-through, must trip <14> High frequency "
    "ride-through, momentary cessation <15> Low frequency ride-through, must trip "
    "<16> Low frequency ride-through, mandatory operation"
)
X_UNITS = (
    "<0> Curve disabled <1> Not applicable <4> Time <23> Temperature (Celsius) <29> Voltage "
    "<33> Frequency <38> Watts <100> Price (hundredths of the local currency) "
    "<129> Percent of voltage <133> Percent of frequency <138> Percent of watts "
    "<233> Frequency deviation"
)
Y_UNITS = (
    "<0> Curve disabled <1> Not applicable <2> Vars, percent of maximum vars (VArMax) "
    "<3> Vars, percent of available vars (VArAval) <4> Vars, percent of maximum watts (WMax) "
    "<5> Watts, percent of maximum watts (WMax) <6> Watts, percent of frozen active power "
    "<7> Power factor (EEI notation) <8> Volts, percent of nominal voltage (VRef) "
    "<9> Frequency, percent of nominal frequency"
)


# The curves the demo DER stores at start, points in whole units of the declared units:
# volt-var (percent of the reference voltage to percent of maximum vars), volt-watt (to percent
# of maximum watts), watt-var (percent of maximum watts to percent of maximum vars), one unused.
DEMO_CURVES = (
    Curve(1, 2, 129, 2, ((92, 44), (98, 0), (102, 0), (108, -44))),
    Curve(2, 5, 129, 5, ((100, 100), (106, 100), (110, 0))),
    Curve(3, 4, 138, 2, ((0, 0), (50, 0), (100, -44))),
    Curve(4, 0, 0, 0),
)


def curve_block(b: Builder) -> CurveBlock:
    """The curve block, its window showing the first stored curve."""
    shown = DEMO_CURVES[0]
    block = CurveBlock(
        selector=244,
        readback=328,
        referenced=107,
        max_points=WINDOW_POINTS,
        curves=len(DEMO_CURVES),
    )
    section = "Curve edit window"
    shared: dict[str, Any] = {"section": section, "purpose": CURVE, "mandatory": True}
    heads = [
        (
            "Curve edit selector. Number of the stored curve the window shows and edits",
            {"minimum": 1, "value": shown.number},
        ),
        (f"Curve type {CURVE_TYPES}", {"maximum": 20, "value": shown.type}),
        ("Curve number of points", {"maximum": WINDOW_POINTS, "value": len(shown.points)}),
        (f"Curve X units {X_UNITS}", {"maximum": 255, "value": shown.x_units}),
        (f"Curve Y units {Y_UNITS}", {"maximum": 255, "value": shown.y_units}),
    ]
    for offset, (name, attrs) in enumerate(heads):
        b.pair(block.output(offset), block.input(offset), name, **shared, **attrs)
    for n in range(1, WINDOW_POINTS + 1):
        given = shown.points[n - 1] if n <= len(shown.points) else (None, None)
        for axis, value in zip("XY", given, strict=True):
            at = block.x_offset(n) + (axis == "Y")
            b.pair(
                block.output(at),
                block.input(at),
                f"Curve point {n} {axis}",
                section=section,
                purpose=CURVE,
                minimum=INT32_MIN,
                value=value,
            )
    b.add(
        Kind.BI,
        107,
        "Selected curve is referenced by a function",
        section=section,
        purpose=CURVE,
        event_class=1,
        states=("Not referenced", "Referenced"),
        value=True,
        mandatory=True,
    )
    return block
