"""der.curve: the stored curve the curve block shows, read back from its inputs.

The curve block (see :mod:`gridwire.der.functions`) is a window onto one stored curve at a
time: the selector (AO244 in the profile's numbering, read back on AI328) picks it; type,
number of points (``count``), X units and Y units follow, then X and Y of each point, each
output mirrored by an input; an indicator (BI107) says whether a function references the
selected curve.

Reading a curve is two READs (by :func:`~gridwire.derops.ranges.read_ranges`): the selector's
readback, the four field readbacks and the referenced indicator; then the first ``2 x count``
X/Y readbacks (none when count is 0 or was not reported). Points are ``[x, y]`` as
transmitted: the tables give the curve block no multiplier, since the units the curve
declares say how its points scale. ``type_name``, ``x_units_name`` and ``y_units_name`` come
from the enumerations the tables give those points, else from the profile's published code
lists (:mod:`gridwire.derops.curve_codes`).

Given ``number``, the selector is written first (a command: its Operate result is
``selected``); the curve is read whatever became of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gridwire.der.functions import (
    CURVE_FIRST_X,
    CURVE_POINTS,
    CURVE_TYPE,
    CURVE_X_UNITS,
    CURVE_Y_UNITS,
    CurveBlock,
)
from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind
from gridwire.derops.curve_codes import CURVE_TYPES, X_UNITS, Y_UNITS
from gridwire.derops.edit_window import select_then_read
from gridwire.derops.errors import NotConfigured
from gridwire.derops.operated import Mode
from gridwire.derops.ranges import PointReader, read_ranges
from gridwire.derops.readings import latest
from gridwire.derops.values import describe, out_of_range, whole
from gridwire.dnp3.objects.records import DnpObject
from gridwire.errors import BadParameter
from gridwire.master import Master
from gridwire.master.controls import Control
from gridwire.master.records import Exchange, OperateResult

INT32 = (-(2**31), 2**31 - 1)
Found = dict[tuple[str, int], DnpObject]


@dataclass(slots=True)
class CurveReading:
    """A stored curve as the curve block's inputs show it; a field no read returned is null."""

    number: int | None
    type: int | None
    type_name: str | None
    count: int | None
    x_units: int | None
    x_units_name: str | None
    y_units: int | None
    y_units_name: str | None
    points: list[list[int | float | None]]
    referenced: bool | None


@dataclass(slots=True)
class CurveResult(CurveReading):
    """der.curve: the curve, the selector's Operate result when a number was given, and every
    request made."""

    selected: OperateResult | None
    exchanges: list[Exchange]


def curve_block_of(point_map: PointMap) -> CurveBlock:
    block = point_map.curve_block
    if block is None:
        raise NotConfigured(f"the profile ({point_map.title}) has no curve block")
    return block


def window_control(point_map: PointMap, offset: int, value: object, what: str) -> Control:
    """The control writing ``value`` (a whole number within the output's range) at ``offset``
    of the curve block's outputs; RequestError naming ``what`` and the point otherwise."""
    block = curve_block_of(point_map)
    point = point_map.get(Kind.AO, block.output(offset))
    if point is None:
        raise NotConfigured(f"{what}: the profile has no AO{block.output(offset)}")
    named = f"{what} ({describe(point)})"
    raw = whole(value, named)
    if not point.in_range(raw):
        raise out_of_range(point, raw, named)
    if not INT32[0] <= raw <= INT32[1]:
        raise BadParameter(f"{named}: {raw} does not fit g41v1 (32-bit)")
    return Control("ao", point.index, raw, 1)


def _value(found: Found, point_type: str, index: int) -> bool | int | float | None:
    obj = found.get((point_type, index))
    return None if obj is None else obj.value  # type: ignore[return-value]


def _whole(found: Found, index: int) -> int | None:
    value = _value(found, "ai", index)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if float(value).is_integer() else None


def _name(
    point_map: PointMap, block: CurveBlock, offset: int, code: int | None, codes: Mapping[int, str]
) -> str | None:
    if code is None:
        return None
    for point in (
        point_map.get(Kind.AO, block.output(offset)),
        point_map.get(Kind.AI, block.input(offset)),
    ):
        name = None if point is None else point.enumeration_name(code)
        if name is not None:
            return name
    return codes.get(code)


async def read_heads(
    reader: PointReader, outstation: str, block: CurveBlock
) -> tuple[tuple[int | None, ...], Found, list[Exchange]]:
    """One READ of the selector's readback, the four field readbacks and the referenced
    indicator: number, type, count, X units and Y units as read (None where not reported),
    the objects by point, and the exchanges."""
    heads: list[tuple[str, int]] = [("ai", block.input(o)) for o in range(CURVE_FIRST_X)]
    if block.referenced is not None:
        heads.append(("bi", block.referenced))
    first = await read_ranges(reader, outstation, heads)
    found = latest(first.objects)
    shown = tuple(_whole(found, block.input(o)) for o in range(CURVE_FIRST_X))
    return shown, found, list(first.exchanges)


async def read_curve(
    reader: PointReader, outstation: str, point_map: PointMap
) -> tuple[CurveReading, list[Exchange]]:
    """The curve the block shows, and the exchanges that read it (see the module's notes)."""
    block = curve_block_of(point_map)
    _, found, exchanges = await read_heads(reader, outstation, block)
    count = _whole(found, block.input(CURVE_POINTS))
    points: list[list[int | float | None]] = []
    shown = 0 if count is None else max(0, min(count, block.max_points))
    if shown:
        wanted = [("ai", block.input(CURVE_FIRST_X + i)) for i in range(2 * shown)]
        second = await read_ranges(reader, outstation, wanted)
        exchanges.extend(second.exchanges)
        pairs = latest(second.objects)
        for n in range(1, shown + 1):
            x = block.input(block.x_offset(n))
            points.append([_plain(pairs, x), _plain(pairs, x + 1)])
    kind = _whole(found, block.input(CURVE_TYPE))
    x_units = _whole(found, block.input(CURVE_X_UNITS))
    y_units = _whole(found, block.input(CURVE_Y_UNITS))
    referenced = None
    if block.referenced is not None:
        flag = _value(found, "bi", block.referenced)
        referenced = flag if isinstance(flag, bool) else None
    reading = CurveReading(
        number=_whole(found, block.input(0)),
        type=kind,
        type_name=_name(point_map, block, CURVE_TYPE, kind, CURVE_TYPES),
        count=count,
        x_units=x_units,
        x_units_name=_name(point_map, block, CURVE_X_UNITS, x_units, X_UNITS),
        y_units=y_units,
        y_units_name=_name(point_map, block, CURVE_Y_UNITS, y_units, Y_UNITS),
        points=points,
        referenced=referenced,
    )
    return reading, exchanges


def _plain(found: Found, index: int) -> int | float | None:
    value = _value(found, "ai", index)
    return None if isinstance(value, bool) else value


def selector_control(point_map: PointMap, number: object) -> Control:
    """The control selecting curve ``number`` (checked against the selector's range)."""
    return window_control(point_map, 0, number, "number")


async def der_curve(
    master: Master,
    outstation: str,
    point_map: PointMap,
    number: int | float | None = None,
    mode: Mode = "direct",
) -> CurveResult:
    """der.curve (see the module's notes). With ``number`` it commands: NotAllowed from the
    master when it may not."""
    curve_block_of(point_map)
    return CurveResult(
        **await select_then_read(
            master, outstation, point_map, "der.curve", number, selector_control, read_curve, mode
        )
    )
