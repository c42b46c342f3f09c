"""Which curve types a function's curve setting takes, and where that came from.

The tables say it through the enumeration of the curve block's type point (AO245 in the
profile's numbering): a setting takes the types whose names begin with its function's name
(:func:`gridwire.der.derive.derive_functions`). A user's tables may enumerate none (an
abridged or vendor copy of the workbook names the point without its values); then the values
IEEE 1815.2 fixes for the type point are used (:data:`STANDARD_CURVE_TYPES`, the profile's
codes as DNP Application Note AN2018-001 publishes them and IEEE 1815.2 took them over;
checked against the enumeration of AO245 in VOLTTRON's MESA point list), matched the same
way, and ride-through settings by the words of the first sentence of their names (high or
low, the last one said; voltage or frequency; must trip, momentary cessation or mandatory
operation). Types a JSON map gives a
setting (``curves[].types``), or an enumeration it gives the type point, are the tables'
and override the standard's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from gridwire.der.derive import curve_key
from gridwire.der.functions import CURVE_TYPE, CurveRef, DerFunction
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind
from gridwire.der.text import first_sentence, normalize

STANDARD_CURVE_TYPES: Final[dict[int, str]] = {
    0: "Curve disabled",
    1: "Not applicable",
    2: "Volt-var",
    3: "Frequency-watt",
    4: "Watt-var",
    5: "Volt-watt",
    6: "Remain connected",
    7: "Temperature",
    8: "Pricing signal",
    9: "High voltage ride-through, must trip",
    10: "High voltage ride-through, momentary cessation",
    11: "Low voltage ride-through, must trip",
    12: "Low voltage ride-through, momentary cessation",
    13: "High frequency ride-through, must trip",
    14: "High frequency ride-through, momentary cessation",
    15: "Low frequency ride-through, must trip",
    16: "Low frequency ride-through, mandatory operation",
}
"""The curve types IEEE 1815.2 fixes for the curve type point, by code (names in our words)."""

Source = Literal["tables", "standard", "none"]
_KINDS: Final = ("must trip", "momentary cessation", "mandatory operation")


@dataclass(frozen=True, slots=True)
class CurveTypes:
    """The types a curve setting takes (empty: any) and where they came from: ``tables``
    (the tables' enumeration or the JSON map), ``standard`` (IEEE 1815.2's values, the tables
    enumerating none) or ``none`` (neither names a type for it)."""

    types: tuple[int, ...]
    source: Source


def tables_enumerate(point_map: PointMap) -> bool:
    """Whether the tables enumerate the values of the curve block's type point."""
    block = point_map.curve_block
    point = None if block is None else point_map.get(Kind.AO, block.output(CURVE_TYPE))
    return point is not None and bool(point.enumeration)


def _ride_through(name: str) -> tuple[int, ...]:
    text = normalize(first_sentence(name)).replace(" ", "").replace("-", "")
    if "ridethrough" not in text:
        return ()
    axis = "volt" if "volt" in text else "freq" if "freq" in text else None
    side = max(("high", "low"), key=text.rfind) if ("high" in text or "low" in text) else None
    kind = next((k for k in _KINDS if k.replace(" ", "") in text), None)
    if axis is None or side is None or kind is None:
        return ()
    words = (side, axis, kind)
    return tuple(
        code
        for code, named in STANDARD_CURVE_TYPES.items()
        if all(w in normalize(named) for w in words)
    )


def standard_types(function: str, setting: str = "") -> tuple[int, ...]:
    """IEEE 1815.2's types for a setting of the function named ``function`` (its name
    ``setting``): a ride-through setting by its words, else the types whose names begin with
    the function's."""
    ride = _ride_through(setting) or _ride_through(function)
    if ride:
        return ride
    key = curve_key(function)
    return tuple(
        code
        for code, named in STANDARD_CURVE_TYPES.items()
        if key and curve_key(named).startswith(key)
    )


def curve_types(point_map: PointMap, function: DerFunction, ref: CurveRef) -> CurveTypes:
    """The types ``ref`` (a curve setting of ``function``) takes (see the module's notes)."""
    if ref.types:
        return CurveTypes(ref.types, "tables")
    if tables_enumerate(point_map):
        return CurveTypes((), "none")
    setting = point_map.get(Kind.AO, ref.setting)
    found = standard_types(function.name, setting.name if setting is not None else "")
    return CurveTypes(found, "standard" if found else "none")
