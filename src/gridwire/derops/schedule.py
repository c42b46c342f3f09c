"""der.schedule: the stored schedule the schedule block shows, read back from its inputs.

The schedule block (see :mod:`gridwire.der.schedules`) is a window onto one stored schedule at
a time: the editor selector (AO461 in AN2018-001, read back on AI570) picks it; its identity,
priority, type, start date (days since 1970-01-01 UTC), start time (milliseconds into that
day), repeat interval, repeat interval units and number of points (``count``) follow, then a
time offset and a value per point, each read back on an input the tables name. Beside them:
the selected schedule's status and validation status, whether it is ready (BI108), the index
of the schedule running (AI569) and the number of schedules (AI24).

Reading is two READs (by :func:`~gridwire.derops.ranges.read_ranges`): the selector's
readback, every field and status input, the ready input, the running index and the number of
schedules; then the first ``count`` pairs of point inputs. Values are in engineering units
(``raw x multiplier + offset`` of each input, as der.read gives them); ``type_name``,
``repeat_units_name``, ``status_name`` and ``validation_name`` come from the enumerations the
tables give those points; ``start`` is the start date and time as an ISO 8601 UTC time.

Given ``number``, the selector is written first (a command: its Operate result is
``selected``); the schedule is read whatever became of it.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind, Point
from gridwire.der.schedules import FIELDS, ScheduleBlock
from gridwire.derops.edit_window import select_then_read
from gridwire.derops.errors import NotConfigured
from gridwire.derops.operated import Mode
from gridwire.derops.ranges import PointReader, read_ranges
from gridwire.derops.readings import engineering, latest
from gridwire.derops.values import Planned, analog_plan, describe
from gridwire.dnp3.objects.records import DnpObject
from gridwire.errors import BadParameter
from gridwire.master import Master
from gridwire.master.controls import Control
from gridwire.master.records import Exchange, OperateResult

Found = dict[tuple[str, int], DnpObject]
Number = int | float
NAMED = ("type", "repeat_units", "status", "validation")


@dataclass(slots=True)
class ScheduleReading:
    """A stored schedule as the schedule block's inputs show it; what no read returned (or
    the tables do not have) is null. ``points`` are ``[time offset, value]``."""

    number: int | None
    identity: Number | None
    priority: Number | None
    type: Number | None
    type_name: str | None
    start_date: Number | None
    start_time: Number | None
    start: str | None
    repeat_interval: Number | None
    repeat_units: Number | None
    repeat_units_name: str | None
    count: int | None
    points: list[list[Number | None]]
    status: Number | None
    status_name: str | None
    validation: Number | None
    validation_name: str | None
    ready: bool | None
    running: Number | None
    schedules: Number | None


@dataclass(slots=True)
class ScheduleResult(ScheduleReading):
    """der.schedule: the schedule, the selector's Operate result when a number was given,
    and every request made."""

    selected: OperateResult | None
    exchanges: list[Exchange]


def schedule_block_of(point_map: PointMap) -> ScheduleBlock:
    block = point_map.schedule_block
    if block is None:
        raise NotConfigured(f"the profile ({point_map.title}) has no schedule block")
    return block


def output_plan(point_map: PointMap, index: int, value: object, what: str) -> Planned:
    """The control writing ``value`` (engineering units, or an enumerated value's name) to
    AO ``index``, scaled by the tables' multiplier, and what it asks the outstation to hold;
    RequestError naming ``what`` and the point when it is not a number within the tables'
    range (nothing is sent)."""
    point = point_map.get(Kind.AO, index)
    if point is None:
        raise NotConfigured(f"{what}: the profile has no AO{index}")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise BadParameter(f"{what} ({describe(point)}): {value!r} is not a number")
    try:
        return analog_plan(point, value, 1)
    except BadParameter as exc:
        raise BadParameter(f"{what}: {exc}") from None


def output_control(point_map: PointMap, index: int, value: object, what: str) -> Control:
    return output_plan(point_map, index, value, what).control


def selector_control(point_map: PointMap, number: object) -> Control:
    block = schedule_block_of(point_map)
    if isinstance(number, float) and not number.is_integer():
        raise BadParameter(f"number: {number!r} is not a whole number")
    return output_control(point_map, block.selector, number, "number")


def _heads(point_map: PointMap, block: ScheduleBlock) -> list[tuple[str, Point]]:
    """Every input the first READ asks for, by what it reports."""
    named: list[tuple[str, Kind, int | None]] = [("number", Kind.AI, block.readback)]
    named += [(name, Kind.AI, index) for name, index in block.inputs]
    named += [
        ("ready", Kind.BI, block.ready_input),
        ("running", Kind.AI, block.running),
        ("schedules", Kind.AI, block.number),
    ]
    found = []
    for name, kind, index in named:
        point = None if index is None else point_map.get(kind, index)
        if point is not None:
            found.append((name, point))
    return found


def _value(found: Found, point: Point) -> Number | bool | None:
    obj = found.get((point.kind.type_name, point.index))
    raw = None if obj is None else obj.value
    if isinstance(raw, bool):
        return raw
    if not isinstance(raw, int | float):
        return None
    return engineering(point, raw)


async def read_heads(
    reader: PointReader, outstation: str, point_map: PointMap
) -> tuple[dict[str, Number | bool | None], list[Exchange]]:
    """One READ of the selector's readback and every field and status input: values by what
    they report (number, identity, ... count, status, validation, ready, running, schedules)."""
    heads = _heads(point_map, schedule_block_of(point_map))
    first = await read_ranges(reader, outstation, [(p.kind.type_name, p.index) for _, p in heads])
    found = latest(first.objects)
    return {name: _value(found, point) for name, point in heads}, list(first.exchanges)


def _start(date: object, time: object) -> str | None:
    if not isinstance(date, int | float) or not isinstance(time, int | float):
        return None
    if isinstance(date, bool) or isinstance(time, bool):
        return None
    seconds = float(date) * 86400 + float(time) / 1000
    if not math.isfinite(seconds) or not 0 <= seconds < 253402300800:  # before year 10000
        return None
    moment = dt.datetime.fromtimestamp(seconds, dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _whole(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if float(value).is_integer() else None


def _number(value: object) -> Number | None:
    return None if isinstance(value, bool) or not isinstance(value, int | float) else value


def _name(point_map: PointMap, block: ScheduleBlock, field: str, code: Number | None) -> str | None:
    if code is None or not float(code).is_integer():
        return None
    for kind, index in ((Kind.AO, block.output(field)), (Kind.AI, block.input(field))):
        point = None if index is None else point_map.get(kind, index)
        name = None if point is None else point.enumeration_name(int(code))
        if name is not None:
            return name
    return None


async def read_schedule(
    reader: PointReader, outstation: str, point_map: PointMap
) -> tuple[ScheduleReading, list[Exchange]]:
    """The schedule the block shows, and the exchanges that read it (see the module's notes)."""
    block = schedule_block_of(point_map)
    heads, exchanges = await read_heads(reader, outstation, point_map)
    count = _whole(heads.get("count"))
    shown = (
        0 if count is None or block.point_input is None else max(0, min(count, block.max_points))
    )
    points: list[list[Number | None]] = []
    if shown and block.point_input is not None:
        wanted = [
            p
            for i in range(2 * shown)
            if (p := point_map.get(Kind.AI, block.point_input + i)) is not None
        ]
        second = await read_ranges(reader, outstation, [("ai", p.index) for p in wanted])
        exchanges.extend(second.exchanges)
        found = latest(second.objects)
        values = {p.index: _number(_value(found, p)) for p in wanted}
        for n in range(shown):
            at = block.point_input + 2 * n
            points.append([values.get(at), values.get(at + 1)])
    plain = {name: _number(heads.get(name)) for name in (*FIELDS, "status", "validation")}
    names = {f"{n}_name": _name(point_map, block, n, plain[n]) for n in NAMED}
    ready = heads.get("ready")
    reading = ScheduleReading(
        number=_whole(heads.get("number")),
        identity=plain["identity"],
        priority=plain["priority"],
        type=plain["type"],
        start_date=plain["start_date"],
        start_time=plain["start_time"],
        start=_start(plain["start_date"], plain["start_time"]),
        repeat_interval=plain["repeat_interval"],
        repeat_units=plain["repeat_units"],
        count=count,
        points=points,
        status=plain["status"],
        validation=plain["validation"],
        ready=ready if isinstance(ready, bool) else None,
        running=_number(heads.get("running")),
        schedules=_number(heads.get("schedules")),
        **names,
    )
    return reading, exchanges


async def der_schedule(
    master: Master,
    outstation: str,
    point_map: PointMap,
    number: Number | None = None,
    mode: Mode = "direct",
) -> ScheduleResult:
    """der.schedule (see the module's notes). With ``number`` it commands: NotAllowed from
    the master when it may not."""
    schedule_block_of(point_map)
    return ScheduleResult(
        **await select_then_read(
            master,
            outstation,
            point_map,
            "der.schedule",
            number,
            selector_control,
            read_schedule,
            mode,
        )
    )
