"""der.write_schedule: store a schedule through the schedule block, then read it back.

Every value is in engineering units (the tables' multiplier scales it to what travels; the
type and the repeat units may be given by the names the tables' enumerations give them),
within the range the tables give its output; a schedule holds at most as many points as the
block's window. All is checked before anything is sent; a refusal names the value and the
point.

Then three operates, each only when the one before was accepted: the selector (``number``);
the fields the tables have outputs for (identity, priority, type, start date, start time,
repeat interval, repeat units, then the number of points = the points given); every point's
time offset and value (none for a schedule of no points). ``stopped_at`` names the step that
was not accepted (selector, fields or points), null when none was refused; a step not
answered stops the write too. In mode direct_no_ack, after the selector and after the fields
the block's readbacks are read, and the next step is sent only when they show what was
written. The schedule is always read back (as der.schedule reads it); ``matches`` says
whether it is the schedule written: number, every field written and every point equal
(within half a step of the multiplier). Every request is listed in ``exchanges``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from gridwire.der.pointmap import PointMap
from gridwire.der.schedules import FIELDS
from gridwire.derops.operated import Mode
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
from gridwire.master.command_log import command
from gridwire.master.records import Exchange, OperateResult

Step = Literal["selector", "fields", "points"]
STEPS: tuple[Step, ...] = ("selector", "fields", "points")
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


def _accepted(steps: list[OperateResult], stopped: Step | None) -> bool | None:
    if any(step.accepted is False for step in steps):
        return False
    if stopped is not None or any(step.accepted is None for step in steps):
        return None
    return True


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
    with command("der.write_schedule", outstation, asked) as record:
        plan = plan_schedule(point_map, number, values, points)
        steps: list[OperateResult] = []
        exchanges: list[Exchange] = []
        stopped: Step | None = None
        for step in STEPS:
            controls = [p.control for p in plan.step(step)]
            if not controls:
                continue
            result = await master.operate_controls(outstation, controls, mode)
            steps.append(result)
            exchanges += result.exchanges
            if result.accepted is False or (result.accepted is None and mode != "direct_no_ack"):
                stopped = step
                break
            if mode == "direct_no_ack" and step != "points":
                heads, reads = await read_heads(master, outstation, point_map)
                exchanges += reads
                if not _shows(plan, step, heads):
                    stopped = step
                    break
        schedule, reads = await read_schedule(master, outstation, point_map)
        exchanges += reads
        matches = _matches(plan, schedule)
        accepted = _accepted(steps, stopped)
        record.result = (
            f"schedule {plan.selector.sent_value} ({len(plan.points) // 2} points): "
            f"accepted={accepted} stopped_at={stopped} matches={matches}"
        )
        return WriteScheduleResult(accepted, matches, stopped, steps, schedule, exchanges)
