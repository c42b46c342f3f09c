"""A small hand-made point map whose names are chosen to exercise the naming rules."""

from __future__ import annotations

from gridwire.der.functions import CurveRef, DerFunction
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point, with_name_values


def _p(kind: Kind, index: int, name: str, **attrs: object) -> Point:
    return with_name_values(Point(kind, index, name, **attrs))  # type: ignore[arg-type]


def small_map() -> PointMap:
    points = [
        _p(
            Kind.BO,
            6,
            "Islanded mode",
            states=("Isochronous", "Droop"),
            associated=Address(Kind.BI, 25),
            purpose="Settings",
        ),
        _p(
            Kind.BI,
            25,
            "Islanded mode",
            states=("Isochronous", "Droop"),
            associated=Address(Kind.BO, 6),
            purpose="Settings",
            event_class=3,
        ),
        _p(
            Kind.AO,
            0,
            "Reference voltage",
            associated=Address(Kind.AI, 29),
            multiplier=0.1,
            units="V",
            purpose="Settings",
        ),
        _p(
            Kind.AI,
            29,
            "Reference voltage",
            associated=Address(Kind.AO, 0),
            multiplier=0.1,
            units="V",
            purpose="Settings",
        ),
        _p(Kind.AI, 537, "System meter active power", units="W", purpose="Monitoring"),
        _p(
            Kind.AI,
            47,
            "State of charge. Stored energy as a share of capacity",
            units="%",
            purpose="Monitoring",
        ),
        _p(
            Kind.AO,
            4,
            "Power factor sign convention <1> IEC <2> IEEE",
            associated=Address(Kind.AI, 41),
        ),
        _p(
            Kind.AI,
            41,
            "Power factor sign convention <1> IEC <2> IEEE",
            associated=Address(Kind.AO, 4),
        ),
        _p(Kind.AI, 100, "Twin"),
        _p(Kind.AI, 101, "twin"),
        _p(Kind.AI, 102, "Twin sentence. The first"),
        _p(Kind.AI, 103, "Twin sentence. The second"),
        _p(Kind.AI, 104, "Exact name"),
        _p(Kind.AI, 105, "Exact name. With more words"),
        _p(Kind.BI, 200, "Only an input"),
        _p(
            Kind.CTR,
            0,
            "Energy delivered",
            units="Wh",
            frozen=True,
            frozen_event_class=3,
            event_class=3,
            purpose="Monitoring",
        ),
        _p(Kind.CTR, 1, "Starts counted", event_class=3, purpose="Monitoring"),
        # One DER function: supports BI48, enable BO29, enabled BI81, a curve setting.
        _p(Kind.BI, 48, "Supports volt-var", purpose="Nameplate", states=("No", "Yes")),
        _p(Kind.BO, 29, "Volt-var enable", associated=Address(Kind.BI, 81), purpose="Volt-Var"),
        _p(Kind.BI, 81, "Volt-var enabled", associated=Address(Kind.BO, 29), purpose="Volt-Var"),
        _p(
            Kind.AO,
            217,
            "Volt-var curve number",
            associated=Address(Kind.AI, 297),
            purpose="Volt-Var",
            minimum=1,
            maximum=4,
        ),
        _p(
            Kind.AI,
            297,
            "Volt-var curve number",
            associated=Address(Kind.AO, 217),
            purpose="Volt-Var",
        ),
        _p(Kind.AI, 301, "Volt-var vars aimed at", purpose="Volt-Var", enable=29, units="var"),
    ]
    function = DerFunction(
        key="volt-var",
        name="Volt-Var",
        purpose="Volt-Var",
        enable=29,
        supports=48,
        enabled=81,
        settings=(217,),
        curves=(CurveRef(217, (2,)),),
    )
    return PointMap(points, title="small", functions=[function])
