"""What the schedule checks (SCHED-001, SCHED-002) share: :class:`Bench`, the schedule block
and the last stored schedule, read before it is overwritten and put back after.

Preconditions (the check is not applicable without them): the profile's schedule block, its
selector and readback, every field's output and input and the first three points' outputs
and inputs served; the number of schedules known (the input that reports it, else the
tables' ``schedules``).

:meth:`Bench.open`, in order: the schedule shown read (the selector's readback); the last
stored schedule (number N) selected and read whole (der.schedule); when it was ready, set not
ready (a ready schedule may refuse edits). Restores, run however the check ended: schedule N
set not ready when it is, written back as it was read and set ready again when it was; the
schedule shown selected again. The restore journal (:mod:`gridwire.evaluate.journal`) keys the
same writes by the schedule shown, so what a restore could not put back it tries again.

:data:`TARGETS` gives, for the schedule types SCHED-002 can watch, the output the DER sets
from the schedule (IEEE 1815.2's numbering, AN2018-001's type codes); a schedule's value as
transmitted is taken as that output's value as transmitted.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, fields
from typing import Final

from gridwire.der.points import Kind, Point
from gridwire.der.schedules import FIELDS, ScheduleBlock
from gridwire.derops.schedule import ScheduleReading
from gridwire.derops.schedule_ready import ScheduleReadyResult
from gridwire.derops.write_schedule import WriteScheduleResult
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import accepted
from gridwire.master.controls import Control

TARGETS: Final[dict[int, int]] = {13: 88, 12: 87, 14: 93, 25: 203, 26: 210}
"""Schedule type -> the AO it sets: active power limit generating (AO88) and charging
(AO87), charge/discharge target (AO93), constant vars (AO203), power factor (AO210)."""
EDITED: Final = (
    "identity",
    "priority",
    "type",
    "start_date",
    "start_time",
    "repeat_interval",
    "repeat_units",
)
LISTED = 8


@dataclass(frozen=True, slots=True)
class Sample:
    """A schedule as written: the fields by name and the points."""

    values: dict[str, int]
    points: list[list[int]]

    def shows(self) -> str:
        return f"{self.values} points {self.points}"


def shows(reading: ScheduleReading) -> str:
    """A schedule as read, for a detail."""
    found = {name: getattr(reading, name) for name in (*EDITED, "count")}
    return f"{found} points {reading.points}"


def _served_block(ctx: CheckContext) -> ScheduleBlock:
    block = ctx.point_map.schedule_block
    if block is None:
        raise NotApplicable("the profile has no schedule block")
    wanted = [f"AO{block.selector}"]
    wanted += [f"AI{block.readback}"] if block.readback is not None else []
    wanted += [f"AO{i}" for _, i in block.outputs] + [f"AI{i}" for _, i in block.inputs]
    for n in range(1, min(3, block.max_points) + 1):
        at = block.offset_output(n)
        wanted += [f"AO{at}", f"AO{at + 1}"]
        if (mirror := block.offset_input(n)) is not None:
            wanted += [f"AI{mirror}", f"AI{mirror + 1}"]
    gone = [a for a in wanted if not ctx.serves(a)]
    if block.readback is None:
        gone.insert(0, "the selector's readback (none in the tables)")
    if gone:
        more = f" and {len(gone) - LISTED} more" if len(gone) > LISTED else ""
        listed = ", ".join(gone[:LISTED])
        raise NotApplicable(f"the schedule block is not served whole: {listed}{more} not served")
    return block


def _whole(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if float(value).is_integer() else None


class Bench:
    """One schedule check's bench (see the module's notes)."""

    def __init__(self, ctx: CheckContext, block: ScheduleBlock, count: int, shown: int) -> None:
        self.ctx = ctx
        self.block = block
        self.count = count
        self.shown = shown
        self.number = count
        self.found: ScheduleReading | None = None

    @classmethod
    async def open(cls, ctx: CheckContext) -> Bench:
        block = _served_block(ctx)
        shown = await cls._read_whole(ctx, block.readback)
        count = block.schedules
        if block.number is not None and ctx.serves(f"AI{block.number}"):
            count = await cls._read_whole(ctx, block.number)
        if count is None or count < 1:
            raise NotApplicable("the number of schedules is not known (no input reports it)")
        bench = cls(ctx, block, count, shown if shown is not None else 1)
        ctx.restore(f"schedule {bench.shown} shown again", bench._show_again)
        ctx.restore(f"schedule {count} put back as found", bench._put_back)
        found = await ctx.der.schedule(count)
        if found.selected is not None:
            accepted(found.selected, f"selecting schedule {count}")
        if found.count is None or any(getattr(found, f) is None for f in _read_fields(block)):
            raise Failed(
                f"schedule {count} did not read back whole ({shows(found)}): it could not be "
                "put back, so it is not overwritten"
            )
        if any(v is None for pair in found.points for v in pair):
            raise Failed(f"schedule {count}'s points did not read back whole: {found.points}")
        bench.found = found
        if found.ready:
            await bench.ready(False, f"setting schedule {count}, found ready, not ready")
        return bench

    @staticmethod
    async def _read_whole(ctx: CheckContext, index: int | None) -> int | None:
        point = None if index is None else ctx.point_map.get(Kind.AI, index)
        if point is None:
            return None
        return _whole((await ctx.read([point]))[str(point.address)].raw)

    # --- restores ----------------------------------------------------------------------------

    async def _show_again(self) -> None:
        control = Control("ao", self.block.selector, self.shown)
        result = await self.ctx.master.operate_controls(self.ctx.outstation, [control])
        accepted(result, f"selecting schedule {self.shown} again")

    async def _put_back(self) -> None:
        found = self.found
        if found is None:
            return
        now = await self.ctx.der.schedule(self.number)
        if now.ready:
            await self.ready(False, f"setting schedule {self.number} not ready")
        values = {n: getattr(found, n) for n in EDITED if getattr(found, n) is not None}
        points = [[x, y] for x, y in found.points if x is not None and y is not None]
        result = await self.ctx.der.write_schedule(self.number, points, "direct", **values)
        if not result.matches:
            raise Failed(f"schedule {self.number} reads {shows(result.schedule)} once put back")
        if found.ready:
            await self.ready(True, f"setting schedule {self.number} ready again, as found")

    # --- the schedule ------------------------------------------------------------------------

    def output(self, field: str) -> Point | None:
        index = self.block.output(field)
        return None if index is None else self.ctx.point_map.get(Kind.AO, index)

    def allowed(self, field: str, value: int) -> bool:
        """Whether the tables let the output of ``field`` hold ``value`` (its range and,
        when it lists values, among them)."""
        point = self.output(field)
        if point is None:
            return True
        listed = point.enumeration
        return point.in_range(value) and (not listed or any(e.value == value for e in listed))

    def sample(self, kind: int, points: list[list[int]], start_ms: int) -> Sample:
        """A schedule of type ``kind`` to write to schedule N, starting at ``start_ms`` (UTC
        milliseconds), not repeated, of priority 1 (or the least the tables take)."""
        priority = self.output("priority")
        low = priority.minimum if priority is not None and priority.minimum is not None else 1
        values = {
            "identity": self.number,
            "priority": max(1, int(low)),
            "type": kind,
            "start_date": start_ms // 86_400_000,
            "start_time": start_ms % 86_400_000,
            "repeat_interval": 0,
            "repeat_units": 0,
        }
        present = {n: v for n, v in values.items() if self.block.output(n) is not None}
        return Sample(present, points)

    async def write(self, sample: Sample, what: str) -> WriteScheduleResult:
        """``sample`` written to schedule N: accepted and read back as written."""
        result = await self.ctx.der.write_schedule(
            self.number, sample.points, "direct", **sample.values
        )
        for step in result.steps:
            accepted(step, f"{what} ({result.stopped_at or 'each step'})")
        if not result.matches:
            raise Failed(
                f"{what}: schedule {self.number} reads {shows(result.schedule)}, not "
                f"{sample.shows()} as written"
            )
        return result

    async def ready(self, on: bool, what: str) -> ScheduleReadyResult:
        """Schedule N set ready (``on``) or not: both controls accepted; the ready input,
        when served, reading it."""
        result = await self.ctx.der.schedule_ready(self.number, on)
        for step in result.steps:
            accepted(step, what)
        served = self.block.ready_input is not None and self.ctx.serves(
            f"BI{self.block.ready_input}"
        )
        if served and result.ready is not on:
            raise Failed(f"{what}: BI{self.block.ready_input} reads {result.ready}, not {on}")
        return result

    def future_start(self) -> int:
        """A start a year from now (UTC ms, whole days): a schedule that does not run."""
        today = dt.datetime.now(dt.UTC).date()
        return (today.toordinal() - dt.date(1970, 1, 1).toordinal() + 365) * 86_400_000


def _read_fields(block: ScheduleBlock) -> list[str]:
    names = {f.name for f in fields(ScheduleReading)}
    return [n for n, _ in block.inputs if n in FIELDS and n in names]


def int_range(point: Point | None, default: tuple[int, int]) -> tuple[int, int]:
    """The tables' range of ``point`` as transmitted (``default`` where they give none)."""
    if point is None:
        return default
    low = int(point.minimum) if point.minimum is not None else default[0]
    high = int(point.maximum) if point.maximum is not None else default[1]
    return low, high
