"""der.write_schedule: store a schedule through the schedule block, then read it back.

Every value is in engineering units (the tables' multiplier scales it to what travels; the
type and the repeat units may be given by the names the tables' enumerations give them),
within the range the tables give its output; a schedule holds at most as many points as the
block's window. All is checked before anything is sent; a refusal names the value and the
point.

Then the three steps of :mod:`gridwire.derops.edit_window`, each only when the one before
was accepted: the selector (``number``); the fields the tables have outputs for (identity,
priority, type, start date, start time, repeat interval, repeat units, then the number of
points = the points given); every point's time offset and value (none for a schedule of no
points). ``stopped_at`` names the step that was not accepted (selector, fields or points),
null when none was refused; a step not answered stops the write too. In mode direct_no_ack,
after the selector and after the fields the block's readbacks are read, and the next step is
sent only when they show what was written. The schedule is always read back (as der.schedule
reads it); ``matches`` says whether it is the schedule written: number, every field written
and every point equal (within half a step of the multiplier). Every request is listed in
``exchanges``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gridwire.der.pointmap import PointMap
from gridwire.der.schedules import FIELDS
from gridwire.derops.edit_window import STEPS, EditWindow, Step, write_window
from gridwire.derops.operated import Mode
from gridwire.derops.ranges import PointReader
from gridwire.derops.schedule import (
    ScheduleReading,
    output_plan,
    read_heads,
    read_schedule,
    schedule_block_of,
)
from gridwire.derops.values import Planned
from gridwire.errors import BadParameter
from gridwire.master import Master
from gridwire.master.records import Exchange, OperateResult

Given = int | float | str


@dataclass(slots=True)
class WriteScheduleResult:
    accepted: bool | None
    matches: bool
    stopped_at: Step | None
    steps: list[OperateResult]
    schedule: ScheduleReading
    exchanges: list[Exchange]


@dataclass(frozen=True, slots=True)
class SchedulePlan:
    """The three writes, checked: by field name (``number`` first), and the points."""

    selector: Planned
    fields: list[tuple[str, Planned]]
    points: list[Planned]

    def step(self, step: Step) -> list[Planned]:
        if step == "selector":
            return [self.selector]
        if step == "fields":
            return [p for _, p in self.fields]
        return self.points


def plan_schedule(
    point_map: PointMap, number: object, values: Mapping[str, object], points: object
) -> SchedulePlan:
    """The writes of a schedule, every value checked; RequestError naming the first that is
    not a number within its output's range (nothing is sent). ``values`` holds the fields
    given (identity, priority, type, start_date, start_time, repeat_interval, repeat_units);
    the number of points is the points'."""
    block = schedule_block_of(point_map)
    if isinstance(points, str) or not isinstance(points, Sequence):
        raise BadParameter("points is a list of [time offset, value] pairs")
    if len(points) > block.max_points:
        raise BadParameter(
            f"a schedule holds at most {block.max_points} points; {len(points)} were given"
        )
    unknown = [name for name in values if name not in FIELDS or name == "count"]
    if unknown:
        raise BadParameter(f"{unknown[0]!r} is not a field of a schedule")
    given = {**values, "count": len(points)}
    fields = []
    for name, index in block.outputs:
        if name in given and given[name] is not None:
            fields.append((name, output_plan(point_map, index, given[name], name)))
    missing = [n for n in values if values[n] is not None and block.output(n) is None]
    if missing:
        raise BadParameter(f"{missing[0]}: the profile's schedule block has no output for it")
    planned: list[Planned] = []
    for n, pair in enumerate(points, start=1):
        if isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise BadParameter(f"points[{n - 1}]: {pair!r} is not a pair [time offset, value]")
        at = block.offset_output(n)
        planned.append(output_plan(point_map, at, pair[0], f"points[{n - 1}] time offset"))
        planned.append(output_plan(point_map, at + 1, pair[1], f"points[{n - 1}] value"))
    selector = output_plan(point_map, block.selector, number, "number")
    if not float(selector.sent_value).is_integer():
        raise BadParameter(f"number: {number!r} is not a whole number")
    return SchedulePlan(selector, fields, planned)


def _same(a: object, planned: Planned) -> bool:
    if isinstance(a, bool) or not isinstance(a, int | float):
        return False
    step = abs(planned.point.multiplier) / 2
    return math.isclose(float(a), float(planned.sent_value), abs_tol=max(step, 1e-9))


def _matches(plan: SchedulePlan, schedule: ScheduleReading) -> bool:
    if not _same(schedule.number, plan.selector):
        return False
    for name, planned in plan.fields:
        if not _same(getattr(schedule, name), planned):
            return False
    values = [v for pair in schedule.points for v in pair]
    return len(values) == len(plan.points) and all(
        _same(v, p) for v, p in zip(values, plan.points, strict=True)
    )


def _shows(plan: SchedulePlan, step: Step, heads: Mapping[str, object]) -> bool:
    if step == "selector":
        return _same(heads.get("number"), plan.selector)
    return all(_same(heads.get(name), p) for name, p in plan.fields if name in heads)


def _window(point_map: PointMap, plan: SchedulePlan) -> EditWindow[ScheduleReading]:
    """The plan as the edit window writes it: the steps, the read back, what matches."""

    async def shows(
        reader: PointReader, outstation: str, step: Step
    ) -> tuple[bool, list[Exchange]]:
        heads, reads = await read_heads(reader, outstation, point_map)
        return _shows(plan, step, heads), reads

    steps = {step: [p.control for p in plan.step(step)] for step in STEPS}
    what = f"schedule {plan.selector.sent_value} ({len(plan.points) // 2} points)"
    return EditWindow(steps, read_schedule, lambda schedule: _matches(plan, schedule), shows, what)


async def der_write_schedule(
    master: Master,
    outstation: str,
    point_map: PointMap,
    number: object,
    values: Mapping[str, object],
    points: Sequence[Sequence[Given]],
    mode: Mode = "direct",
) -> WriteScheduleResult:
    """der.write_schedule (see the module's notes). Raises NotAllowed from the master when it
    may not command, ConnectionFailed when the outstation is not connected."""
    asked = {"number": number, **values, "points": points, "mode": mode}
    w = await write_window(
        master,
        outstation,
        point_map,
        "der.write_schedule",
        asked,
        lambda: _window(point_map, plan_schedule(point_map, number, values, points)),
        mode,
    )
    return WriteScheduleResult(w.accepted, w.matches, w.stopped_at, w.steps, w.reading, w.exchanges)
