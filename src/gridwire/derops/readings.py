"""The DER reading of a point: what the outstation reported, in the point map's terms.

A reading names the point as the tables do (address, type, index, name, label, units) and
gives what a read returned for it:

- ``value``: a binary point's state as true or false; an analog point (or a counter) in
  engineering units, ``raw x multiplier + offset`` rounded to the decimals of the multiplier
  and offset, so 4224 at a multiplier of 0.1 reads 422.4 and not 422.40000000000003. A value
  sent in a floating-point variation is taken as already in engineering units (the DNP3
  Device Profile's rule: scaling applies to the integer variations only) and is not scaled.
- ``raw``: the value as transmitted.
- ``state``: a binary point's state by the name the tables give it (an enumerated analog
  point's value by its name, too; our addition), else null.
- ``flags`` and ``time_ms`` as the object carried them.
- ``quality``: ``no_flags`` for a variation that carries no flags; else ``comm_lost`` or
  ``restart`` when that flag is set, ``offline`` without ONLINE, ``good`` otherwise; and
  ``not_reported`` when no read returned the point (value, raw, state, flags and time null).

When a read returned a point more than once, a static object wins over an event; among
objects of one kind the last received wins.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import Literal

from gridwire.der.points import Kind, Point
from gridwire.dnp3.objects.records import DnpObject

Quality = Literal["good", "comm_lost", "restart", "offline", "no_flags", "not_reported"]
Scalar = bool | int | float
NO_UNITS = frozenset({"", "n/a", "na", "none"})
_TYPE_NAMES = {kind: kind.type_name for kind in Kind}


@dataclass(slots=True)
class PointInfo:
    """A point as the tables name it."""

    address: str
    type: str
    index: int
    name: str
    label: str
    units: str | None


@dataclass(slots=True)
class DerReading(PointInfo):
    """One point as read (see the module's notes)."""

    value: Scalar | None
    raw: Scalar | None
    state: str | None
    flags: list[str] | None
    quality: Quality
    time_ms: int | None


def units_of(point: Point) -> str | None:
    """The point's units; None where the tables give none ("", "n/a", "none")."""
    units = point.units
    if units is None or units.strip().casefold() in NO_UNITS:
        return None
    return units


@lru_cache(maxsize=1024)
def decimals(number: float) -> int:
    """Decimal places of a multiplier or offset as written (0.1: 1, 0.25: 2, 10: 0)."""
    if not math.isfinite(number):
        return 0
    exponent = Decimal(repr(float(number))).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def engineering(point: Point, raw: int | float) -> int | float:
    """``raw`` in the point's units. A float is a floating-point variation's value, already
    in engineering units; an integer is scaled and rounded to the scaling's decimals."""
    if isinstance(raw, float):
        return raw
    places = _places(point.multiplier, point.offset)
    value = round(raw * point.multiplier + point.offset, places)
    if places == 0:
        return int(value) if math.isfinite(value) else value
    return value


@lru_cache(maxsize=1024)
def _places(multiplier: float, offset: float) -> int:
    return max(decimals(multiplier), decimals(offset))


def engineering_range(point: Point) -> tuple[float | None, float | None]:
    """The tables' minimum and maximum in the point's units, lowest first, rounded as a
    reading is (a raw maximum of 2147483647 at 0.1 is 214748364.7, not 214748364.70000002)."""
    places = _places(point.multiplier, point.offset)
    low, high = point.engineering_range
    return (
        None if low is None else round(low, places),
        None if high is None else round(high, places),
    )


def quality_of(flags: list[str] | None) -> Quality:
    if flags is None:
        return "no_flags"
    if "COMM_LOST" in flags:
        return "comm_lost"
    if "RESTART" in flags:
        return "restart"
    if "ONLINE" not in flags:
        return "offline"
    return "good"


def latest(objects: Iterable[DnpObject]) -> dict[tuple[str, int], DnpObject]:
    """The object that stands for each point (by API type and index): a static object over
    an event, else the last received. Objects that are not a point's value (commands, times,
    attributes) are left out."""
    found: dict[tuple[str, int], DnpObject] = {}
    for obj in objects:
        if obj.type is None or obj.index is None or not isinstance(obj.value, bool | int | float):
            continue
        key = (obj.type, obj.index)
        held = found.get(key)
        if held is None or held.event or not obj.event:
            found[key] = obj
    return found


def point_info(point: Point) -> PointInfo:
    return PointInfo(*naming(point))


def naming(point: Point) -> tuple[str, str, int, str, str, str | None]:
    """The fields of :class:`PointInfo` for ``point``, in order."""
    kind = point.kind
    return (
        str(point.address),
        _TYPE_NAMES[kind],
        point.index,
        point.name,
        point.label,
        units_of(point),
    )


def reading(point: Point, obj: DnpObject | None) -> DerReading:
    """The reading of ``point`` from the object a read returned for it (None: none did)."""
    if obj is None or not isinstance(obj.value, bool | int | float):
        return DerReading(*naming(point), None, None, None, None, "not_reported", None)
    raw = obj.value
    value: Scalar
    state: str | None
    if isinstance(raw, bool):
        value, state = raw, point.state_name(raw)
    else:
        value = engineering(point, raw)
        state = point.enumeration_name(raw) if isinstance(raw, int) else None
    return DerReading(
        *naming(point), value, raw, state, obj.flags, quality_of(obj.flags), obj.time_ms
    )


def readings(points: Iterable[Point], objects: Iterable[DnpObject]) -> list[DerReading]:
    """The reading of each point, in the order given, from the objects of one or more reads."""
    found = latest(objects)
    return [reading(p, found.get((p.kind.type_name, p.index))) for p in points]
