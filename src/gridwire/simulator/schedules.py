"""The simulated DER's stored schedules, the schedule block's window onto them, and running
them on the DER's own clock.

The window (the schedule block of the point map: selector AO461, the fields, the points from
AO470; their mirrors from AI570) shows one stored schedule at a time; schedules are numbered
from 1 to the number stored (the block's ``schedules``, else 4). Rules (pinned by tests in
tests/simulator/test_schedules.py):

- Selecting a schedule beyond the count is refused OUT_OF_RANGE (as a curve beyond the count).
- An edit of a schedule that is ready (BO42 latched on while it was shown) is refused
  AUTOMATION_INHIBIT, as an edit of a curve an enabled function uses is (D46); the
  ``accept_schedule_edits_in_use`` deviation accepts it.
- Setting a schedule ready (BO42 on) is refused NOT_SUPPORTED when it has no points or its
  type names nothing the DER can follow (:data:`TARGETS`); off is always taken.
- A ready schedule runs from its start (start date in days since 1970-01-01 UTC, start time
  in milliseconds into that day) on the DER's clock (the outstation's, which a master sets by
  writing the time): each point becomes active at its time offset (seconds) after the start
  and stays active until the next one; with a repeat interval (units 1 seconds ... 5 weeks),
  the offsets count from the start of each repetition. Months (units 6-8) are not simulated:
  such a schedule runs once. Among the ready schedules with an active point the lowest
  priority number wins; its active point's value is written, as transmitted, to the output the
  schedule's type names (and its mirror input), once per change; the running index (AI569)
  names it (0 when none runs). The selected schedule's status reads 2 (inactive), 3 (ready to
  run) or 4 (running); its validation status 2 (validated) once it is ready.
- A schedule set not ready stops: the output keeps the value last applied.
- The ``ignore_schedule_points`` deviation reports a ready schedule running and applies
  nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from gridwire.der.pointmap import PointMap
from gridwire.der.points import Kind
from gridwire.der.schedules import FIELDS, ScheduleBlock
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.outstation.database import Database
from gridwire.outstation.points import PointType, Value
from gridwire.simulator import profile as P

TARGETS: Final[dict[int, int]] = {
    12: P.LIMIT_CHARGING,
    13: P.LIMIT_GENERATING,
    14: P.CHARGE_DISCHARGE_TARGET,
    21: P.VOLT_WATT_CURVE,
    25: P.CONSTANT_VARS_TARGET,
    26: P.POWER_FACTOR_GENERATING,
    27: P.VOLT_VAR_CURVE,
}
"""Schedule type (AN2018-001's codes) -> the AO the simulated DER sets from the schedule."""
UNIT_SECONDS: Final = {1: 1, 2: 60, 3: 3600, 4: 86400, 5: 604800}
INACTIVE, READY, RUNNING = 2, 3, 4
VALIDATED = 2
ACCEPT_EDITS_IN_USE: Final = "accept_schedule_edits_in_use"
IGNORE_POINTS: Final = "ignore_schedule_points"


@dataclass(slots=True)
class Schedule:
    identity: int = 0
    priority: int = 1
    type: int = 0
    start_date: int = 0
    start_time: int = 0
    repeat_interval: int = 0
    repeat_units: int = 0
    points: list[tuple[int, int]] = field(default_factory=list)
    ready: bool = False

    def start_ms(self) -> int:
        return self.start_date * 86_400_000 + self.start_time

    def active(self, ms: int) -> tuple[int, int] | None:
        """(point number from 1, value) active at device time ``ms``; None before the first."""
        elapsed = (ms - self.start_ms()) / 1000
        if elapsed < 0 or not self.points:
            return None
        period = self.repeat_interval * UNIT_SECONDS.get(self.repeat_units, 0)
        if period > 0:
            elapsed %= period
        found = None
        for n, (offset, value) in sorted(enumerate(self.points, 1), key=lambda p: p[1][0]):
            if offset <= elapsed:
                found = (n, value)
        return found


class ScheduleRunner:
    """The stored schedules of a simulated DER and the window onto them."""

    def __init__(
        self,
        block: ScheduleBlock,
        point_map: PointMap,
        database: Database,
        misbehave: frozenset[str],
    ) -> None:
        self.block = block
        self.map = point_map
        self.db = database
        self.count = block.schedules if block.schedules is not None else 4
        self.schedules = {n: Schedule(identity=n) for n in range(1, self.count + 1)}
        self.selected = 1
        self.running = 0
        self.active: tuple[int, int] | None = None  # (schedule, point) last applied
        self.lock = ACCEPT_EDITS_IN_USE not in misbehave
        self.follow = IGNORE_POINTS not in misbehave
        self._outputs = block.window_outputs()

    @classmethod
    def of(
        cls, point_map: PointMap, database: Database, misbehave: frozenset[str]
    ) -> ScheduleRunner | None:
        """The runner of a map's schedule block; None when it has none."""
        block = point_map.schedule_block
        return None if block is None else cls(block, point_map, database, misbehave)

    # -- the window ----------------------------------------------------------------------
    def owns(self, kind: Kind, index: int) -> bool:
        if kind is Kind.BO:
            return index == self.block.ready
        return index == self.block.selector or index in self._outputs

    def values(self) -> Iterator[tuple[PointType, int, Value]]:
        """Every output and input of the window with the value it shows now."""
        block, shown = self.block, self.schedules[self.selected]
        yield "ao", block.selector, self.selected
        if block.readback is not None:
            yield "ai", block.readback, self.selected
        fields = {name: getattr(shown, name) for name in FIELDS if name != "count"}
        fields["count"] = len(shown.points)
        fields["status"] = self._status(self.selected)
        fields["validation"] = VALIDATED if shown.ready else 0
        for name, index in block.outputs:
            yield "ao", index, fields[name]
        for name, index in block.inputs:
            yield "ai", index, fields[name]
        for n in range(block.max_points):
            pair = shown.points[n] if n < len(shown.points) else (0, 0)
            for axis in (0, 1):
                yield "ao", block.point_output + 2 * n + axis, pair[axis]
                if block.point_input is not None:
                    yield "ai", block.point_input + 2 * n + axis, pair[axis]
        if block.ready is not None:
            yield "bo", block.ready, shown.ready
        if block.ready_input is not None:
            yield "bi", block.ready_input, shown.ready
        if block.running is not None:
            yield "ai", block.running, self.running
        if block.number is not None:
            yield "ai", block.number, self.count

    def _status(self, number: int) -> int:
        schedule = self.schedules[number]
        if not schedule.ready:
            return INACTIVE
        return RUNNING if self.running == number else READY

    def publish(self, now: float) -> None:
        """The window's points take the values it shows (those that changed)."""
        for type, index, value in self.values():
            stored = self.db.point(type, index)
            if stored is not None and stored.value != value:
                self.db.update(type, index, value, now=now)

    def analog(self, index: int, value: int, select: bool, now: float) -> CommandStatus:
        block = self.block
        if index == block.selector:
            if not 1 <= value <= self.count:
                return CommandStatus.OUT_OF_RANGE
            if not select:
                self.selected = value
                self.publish(now)
            return CommandStatus.SUCCESS
        shown = self.schedules[self.selected]
        if self.lock and shown.ready:
            return CommandStatus.AUTOMATION_INHIBIT
        if not select:
            before = len(shown.points)
            self._edit(shown, index, value)
            low, high = sorted((before, len(shown.points)))
            changed = [index, *range(block.point_output + 2 * low, block.point_output + 2 * high)]
            count = block.output("count")
            self._publish_outputs([*changed, count] if count is not None else changed, now)
        return CommandStatus.SUCCESS

    def _publish_outputs(self, outputs: list[int], now: float) -> None:
        """Only the outputs an edit changed, and their mirrors (one write must not walk the
        whole window: a hundred points are over four hundred points to look up)."""
        shown = {index: value for type, index, value in self.values() if type == "ao"}
        for index in dict.fromkeys(outputs):
            mirror = self.block.mirror_input(index)
            for type, at in (("ao", index), ("ai", mirror)):
                stored = None if at is None else self.db.point(type, at)  # type: ignore[arg-type]
                if stored is not None and at is not None and stored.value != shown[index]:
                    self.db.update(type, at, shown[index], now=now)  # type: ignore[arg-type]

    def _edit(self, shown: Schedule, index: int, value: int) -> None:
        block = self.block
        for name, at in block.outputs:
            if at != index:
                continue
            if name == "count":
                size = max(0, min(value, block.max_points))
                shown.points = (shown.points + [(0, 0)] * size)[:size]
            else:
                setattr(shown, name, value)
            return
        pair, axis = divmod(index - block.point_output, 2)
        while len(shown.points) <= pair:
            shown.points.append((0, 0))
        offset, held = shown.points[pair]
        shown.points[pair] = (value, held) if axis == 0 else (offset, value)

    def ready(self, on: bool, select: bool, now: float) -> CommandStatus:
        shown = self.schedules[self.selected]
        if on and (not shown.points or shown.type not in TARGETS):
            return CommandStatus.NOT_SUPPORTED
        if not select:
            shown.ready = on
            if not on and self.running == self.selected:
                self.running, self.active = 0, None  # it stops now; another may run next tick
            self.publish(now)
        return CommandStatus.SUCCESS

    # -- running -------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Run the ready schedules at the DER's time (see the module's notes)."""
        ms = self.db.clock.ms(now)
        best: tuple[int, int, int, int] | None = None  # priority, number, point, value
        for number, schedule in self.schedules.items():
            active = schedule.active(ms) if schedule.ready else None
            if active is not None and (best is None or schedule.priority < best[0]):
                best = (schedule.priority, number, *active)
        running = 0 if best is None else best[1]
        key = None if best is None else (best[1], best[2])
        if best is not None and self.follow and key != self.active:
            self._apply(TARGETS[self.schedules[best[1]].type], best[3], now)
        self.active = key
        if running != self.running:
            self.running = running
            self.publish(now)

    def _apply(self, target: int, value: int, now: float) -> None:
        point = self.map.get(Kind.AO, target)
        if point is None:
            return
        pairs: list[tuple[PointType, int]] = [("ao", target)]
        mirror = self.map.mirror(point)
        if mirror is not None:
            pairs.append(("ai", mirror.index))
        for type, index in pairs:
            stored = self.db.point(type, index)
            if stored is not None and stored.value != value:
                self.db.update(type, index, value, now=now)
