"""Records the master answers with from the map alone: the points of a profile (the `profile`
operation) and the DER functions with their settings (the listing part of der.functions).

The spec's "Point of a profile" record has no kind: it is the same record for every kind. A
profile is therefore answered as one list per kind, keyed by the ``type`` the API gives objects
of that kind (bi, bo, counter, frozen, ai, ao), so that BI5 and AI5 are told apart by the list
they are in; ``frozen`` repeats the counters that have a frozen counterpart.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Number, Point
from gridwire.der.text import EnumValue


@dataclass(slots=True)
class ProfilePoint:
    """The spec's "Point of a profile". ``enumeration`` lists an analog point's values, or a
    binary point's two states (values 0 and 1) when the tables name them."""

    index: int
    name: str
    label: str
    enumeration: list[EnumValue] | None
    mandatory: bool
    section: str


@dataclass(slots=True)
class Profile:
    """Every point of a profile, one list per kind, each by index."""

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
    )


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


@dataclass(slots=True)
class SettingRecord:
    """A function's setting: an analog output, its range as transmitted and in its units
    (``low``/``high``), and the input that reads it back."""

    address: str
    name: str
    units: str | None
    minimum: Number | None
    maximum: Number | None
    multiplier: float
    offset: float
    low: float | None
    high: float | None
    enumeration: list[EnumValue] | None
    readback: str | None


@dataclass(slots=True)
class FunctionRecord:
    """A DER function by the addresses of its points; ``curve_types`` are the curve types
    (values of the curve block's type point) its curve settings take."""

    key: str
    name: str
    purpose: str
    supports: str | None
    enable: str
    enabled: str | None
    settings: list[SettingRecord]
    curve_types: list[int]


def function_records(point_map: PointMap) -> list[FunctionRecord]:
    """Every function of the map with its settings, units and ranges."""
    records = []
    for function in point_map.functions:
        settings = []
        for index in function.settings:
            point = point_map[Address(Kind.AO, index)]
            low, high = point.engineering_range
            mirror = point_map.mirror(point)
            settings.append(
                SettingRecord(
                    address=str(point.address),
                    name=point.name,
                    units=point.units,
                    minimum=point.minimum,
                    maximum=point.maximum,
                    multiplier=point.multiplier,
                    offset=point.offset,
                    low=low,
                    high=high,
                    enumeration=None if point.enumeration is None else list(point.enumeration),
                    readback=None if mirror is None else str(mirror.address),
                )
            )
        records.append(
            FunctionRecord(
                key=function.key,
                name=function.name,
                purpose=function.purpose,
                supports=None if function.supports is None else f"BI{function.supports}",
                enable=f"BO{function.enable}",
                enabled=None if function.enabled is None else f"BI{function.enabled}",
                settings=settings,
                curve_types=list(function.curve_types),
            )
        )
    return records
