"""der.functions: every DER function of the point map, with what the outstation says of it.

Functions come from the point map (:class:`gridwire.der.DerFunction`: listed in a JSON map,
or found in a workbook's tables by :mod:`gridwire.der.derive`). One READ (by
:func:`~gridwire.derops.ranges.read_ranges`) takes every function's supports input and
enabled input (the enable output's mirror, ``status``); each function then lists:

- ``key``, ``name``, ``purpose``; ``enable`` (the enable output's address), ``status`` (the
  address of its mirror), ``supports`` (the address of the supports input);
- ``supported`` and ``enabled``: the states those inputs read, null when not reported;
- ``settings``: each analog output of the function with its name, label, ``units`` (null
  where the tables give none), ``multiplier``, ``minimum`` and ``maximum`` in engineering
  units (lowest first, null where the range is open), ``states`` (an enumeration's values by
  name) and ``mirror`` (the input that reads it back);
- ``inputs``: the function's other inputs (its readings and the settings' mirrors: what the
  outstation sends offline while the function is disabled);
- ``curve_settings``: the settings that hold the number of a stored curve, with the curve
  types a curve named there must have.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridwire.der.curve_types import curve_types
from gridwire.der.functions import CurveRef, DerFunction
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Address, Kind, Point
from gridwire.der.text import EnumValue
from gridwire.derops.ranges import PointReader, read_ranges
from gridwire.derops.readings import PointInfo, engineering_range, latest, naming, point_info
from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.records import Exchange


@dataclass(slots=True)
class SettingInfo(PointInfo):
    """A setting of a function: an analog output, its scaling and range in engineering
    units, the values it takes by name, and its mirror input."""

    multiplier: float
    minimum: float | None
    maximum: float | None
    states: list[EnumValue] | None
    mirror: str | None


@dataclass(slots=True)
class CurveSetting:
    """A setting holding a curve's number, and the curve types it takes (empty: any);
    ``types_from``: ``tables`` (the tables or the JSON map), ``standard`` (IEEE 1815.2's
    values, the tables enumerating none) or ``none``."""

    address: str
    types: list[int]
    types_from: str = "tables"


@dataclass(slots=True)
class FunctionInfo:
    key: str
    name: str
    purpose: str
    enable: str
    status: str | None
    supports: str | None
    supported: bool | None
    enabled: bool | None
    settings: list[SettingInfo]
    inputs: list[PointInfo]
    curve_settings: list[CurveSetting]


@dataclass(slots=True)
class FunctionsResult:
    functions: list[FunctionInfo]
    exchanges: list[Exchange]


def states_of(point: Point) -> list[EnumValue] | None:
    if point.enumeration is not None:
        return list(point.enumeration)
    if point.states is not None:
        return [EnumValue(0, point.states[0]), EnumValue(1, point.states[1])]
    return None


def setting_info(point_map: PointMap, point: Point) -> SettingInfo:
    low, high = engineering_range(point)
    mirror = point_map.mirror(point)
    return SettingInfo(
        *naming(point),
        point.multiplier,
        low,
        high,
        states_of(point),
        None if mirror is None else str(mirror.address),
    )


def _state(found: dict[tuple[str, int], DnpObject], index: int | None) -> bool | None:
    obj = None if index is None else found.get(("bi", index))
    return obj.value if obj is not None and isinstance(obj.value, bool) else None


def function_info(
    point_map: PointMap, function: DerFunction, found: dict[tuple[str, int], DnpObject]
) -> FunctionInfo:
    """One function as der.functions lists it, from the objects a read returned."""
    keep = {Address(Kind.BI, i) for i in (function.supports, function.enabled) if i is not None}
    settings = [point_map.at(Address(Kind.AO, index)) for index in function.settings]
    inputs = [
        p for p in point_map.function_points(function) if p.kind.is_input and p.address not in keep
    ]
    return FunctionInfo(
        key=function.key,
        name=function.name,
        purpose=function.purpose,
        enable=f"BO{function.enable}",
        status=None if function.enabled is None else f"BI{function.enabled}",
        supports=None if function.supports is None else f"BI{function.supports}",
        supported=_state(found, function.supports),
        enabled=_state(found, function.enabled),
        settings=[setting_info(point_map, p) for p in settings if p is not None],
        inputs=[point_info(p) for p in inputs],
        curve_settings=[_curve_setting(point_map, function, r) for r in function.curves],
    )


def _curve_setting(point_map: PointMap, function: DerFunction, ref: CurveRef) -> CurveSetting:
    found = curve_types(point_map, function, ref)
    return CurveSetting(f"AO{ref.setting}", list(found.types), found.source)


async def der_functions(
    reader: PointReader, outstation: str, point_map: PointMap
) -> FunctionsResult:
    """der.functions (see the module's notes)."""
    wanted = [
        ("bi", index)
        for f in point_map.functions
        for index in (f.supports, f.enabled)
        if index is not None and point_map.get(Kind.BI, index) is not None
    ]
    exchanges: list[Exchange] = []
    found: dict[tuple[str, int], DnpObject] = {}
    if wanted:
        ranged = await read_ranges(reader, outstation, wanted)
        exchanges, found = ranged.exchanges, latest(ranged.objects)
    functions = [function_info(point_map, f, found) for f in point_map.functions]
    return FunctionsResult(functions, exchanges)
