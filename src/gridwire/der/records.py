"""The record the master answers the `profile` operation with, from the map alone (the DER
functions with their settings are listed by der.functions, :mod:`gridwire.derops.functions`).

The operations API's point of a point map has no kind: it is the same record for every kind. A
point map is therefore answered as one list per kind, keyed by the ``type`` the API gives objects
of that kind (bi, bo, counter, frozen, ai, ao), so that BI5 and AI5 are told apart by the list
they are in; ``frozen`` repeats the counters that have a frozen counterpart.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind, Point
from gridwire.der.text import EnumValue


@dataclass(slots=True)
class ProfilePoint:
    """A point of a point map, as the ``profile`` operation answers it. ``enumeration`` lists an analog point's values, or a
    binary point's two states (values 0 and 1) when the tables name them. ``units``,
    ``multiplier`` and ``offset`` give a transmitted value its engineering value
    (raw x multiplier + offset), so a page can show both (D128); ``units`` is None where the
    tables give none."""

    index: int
    name: str
    label: str
    enumeration: list[EnumValue] | None
    mandatory: bool
    section: str
    units: str | None = None
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(slots=True)
class Profile:
    """Every point of a point map, one list per kind, each by index."""

    title: str
    demo: bool
    bi: list[ProfilePoint]
    bo: list[ProfilePoint]
    counter: list[ProfilePoint]
    frozen: list[ProfilePoint]
    ai: list[ProfilePoint]
    ao: list[ProfilePoint]


def profile_point(point: Point) -> ProfilePoint:
    enumeration: list[EnumValue] | None = None
    if point.enumeration is not None:
        enumeration = list(point.enumeration)
    elif point.states is not None:
        enumeration = [EnumValue(0, point.states[0]), EnumValue(1, point.states[1])]
    return ProfilePoint(
        index=point.index,
        name=point.name,
        label=point.label,
        enumeration=enumeration,
        mandatory=point.mandatory,
        section=point.section,
        units=_units(point.units),
        multiplier=point.multiplier,
        offset=point.offset,
    )


def _units(units: str | None) -> str | None:
    """The tables' units, None for an empty cell or one that says there are none."""
    if units is None or units.strip().casefold() in ("", "n/a", "na", "none"):
        return None
    return units


def profile_of(point_map: PointMap) -> Profile:
    """The `profile` result for an outstation served by ``point_map``."""

    def listed(kind: Kind) -> list[ProfilePoint]:
        return [profile_point(p) for p in point_map.by_kind(kind)]

    counters = listed(Kind.CTR)
    frozen = [r for r, p in zip(counters, point_map.by_kind(Kind.CTR), strict=True) if p.frozen]
    return Profile(
        title=point_map.title,
        demo=point_map.demo,
        bi=listed(Kind.BI),
        bo=listed(Kind.BO),
        counter=counters,
        frozen=frozen,
        ai=listed(Kind.AI),
        ao=listed(Kind.AO),
    )
