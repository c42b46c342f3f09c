"""Outputs written and read back through their mirrors: what the service checks (CONN-001,
SERV-001, SERV-001.2, SERV-001.3) and the mode checks share.

Values here are as transmitted: an analog output's whole number (the test values of
:func:`gridwire.evaluate.primitives.test_values`), a binary output's state (a latch).

- :func:`value_sets`: an output's values for sets 0 and 1.
- :func:`operate`: one request carrying every value, each control accepted.
- :func:`read_back`: the mirror of each output reads what was written (an analog one within
  :func:`~gridwire.evaluate.primitives.tolerance`), with the flags asked for; retried until
  settle. An output whose mirror is not served is noted, not read back.
- :func:`states`: binary inputs read in the states expected, retried until settle.
- :class:`Kept`: what outputs held before a check wrote them, put back when it ends.
- :func:`toggle`: a binary output latched to the other state and back, its mirror following.
- :func:`span` and :func:`took`: points and times as a passed check's detail gives them.

Each failure names the point and what was seen; at most :data:`LISTED` problems are listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from gridwire.der.points import Kind, Point
from gridwire.derops.readings import DerReading, engineering
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.outcomes import Failed
from gridwire.evaluate.primitives import (
    accepted,
    eventually,
    offline,
    online,
    test_values,
    tolerance,
    within,
)
from gridwire.master.controls import Control

Value = bool | int | float
"""A value as transmitted: a binary output's state, an analog output's number."""
Values = list[tuple[Point, Value]]
Flags = Literal["online", "offline", "any"]
LISTED = 8


def value_sets(point: Point) -> tuple[Value, Value]:
    """An output's values for sets 0 and 1: a binary output off then on; an analog output the
    primitives' test values, brought within the tables' range where a narrow range leaves
    them outside it (a range of 1..2 would give 3), and to the nearest value it names when
    the tables enumerate its values."""
    if point.kind is Kind.BO:
        return False, True
    first, second = test_values(point)
    return _fitted(point, first), _fitted(point, second)


def _fitted(point: Point, value: int | float) -> int | float:
    if point.maximum is not None and value > point.maximum:
        value = point.maximum
    if point.minimum is not None and value < point.minimum:
        value = point.minimum
    named = [item.value for item in point.enumeration or ()]
    if named and value not in named:
        value = min(named, key=lambda n: (abs(n - value), n))
    return value


def set_of(points: Sequence[Point], number: int) -> Values:
    """Value set ``number`` (0 or 1) of ``points``."""
    return [(p, value_sets(p)[number]) for p in points]


def shown(point: Point, value: Value) -> str:
    """A value as a detail names it: on/off, or the number as transmitted."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value}"


def span(points: Sequence[Point]) -> str:
    """Points as a detail names them, each unbroken run of one kind as a range:
    ``AO168-AO172, AO174-AO179`` (the first :data:`LISTED` runs, then how many more)."""
    if not points:
        return "none"
    runs: list[list[Point]] = []
    for point in points:
        last = runs[-1][-1] if runs else None
        if last is not None and last.kind is point.kind and point.index == last.index + 1:
            runs[-1].append(point)
        else:
            runs.append([point])
    names = [
        f"{run[0].address}-{run[-1].address}" if len(run) > 1 else str(run[0].address)
        for run in runs
    ]
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    return ", ".join(names[:LISTED]) + more


def took(seconds: float) -> str:
    """A time as a detail gives it: ``40 ms`` below a second (``under 1 ms``), else
    ``1.2 s``."""
    if seconds < 0.0005:
        return "under 1 ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def control_of(point: Point, value: Value) -> Control:
    if point.kind is Kind.BO:
        return Control("bo", point.index, bool(value))
    return Control("ao", point.index, value)


async def operate(ctx: CheckContext, values: Values, what: str) -> None:
    """Send every value in one request (direct operate); Failed unless each control came
    back SUCCESS and echoed."""
    if not values:
        return
    controls = [control_of(p, v) for p, v in values]
    result = await ctx.master.operate_controls(ctx.outstation, controls)
    accepted(result, what)


def _fail_with(what: str, problems: list[str]) -> None:
    if problems:
        more = f"; and {len(problems) - LISTED} more" if len(problems) > LISTED else ""
        raise Failed(f"{what}: " + "; ".join(problems[:LISTED]) + more)


def _judge_flags(reading: DerReading, flags: Flags) -> str | None:
    try:
        if flags == "online":
            online(reading)
        elif flags == "offline":
            offline(reading)
    except Failed as exc:
        return exc.detail
    return None


def _number(reading: DerReading) -> float | None:
    value = reading.value
    return None if isinstance(value, bool) or value is None else float(value)


def _mismatch(output: Point, value: Value, mirror: Point, reading: DerReading) -> str | None:
    """What is wrong with ``mirror`` reading back ``value`` written to ``output``, if any."""
    if reading.quality == "not_reported":
        return f"{mirror.address} was not reported"
    if isinstance(value, bool):
        if reading.value is not value:
            return (
                f"{mirror.address} reads {reading.value!r}, not {shown(output, value)} as "
                f"{output.address} was latched"
            )
        return None
    expected = float(engineering(output, value))
    allowed = tolerance(output, mirror)
    if not within(_number(reading), expected, allowed):
        return (
            f"{mirror.address} reads {reading.value!r}, not {engineering(output, value)} "
            f"(within {allowed:g}) as written to {output.address} ({value} transmitted)"
        )
    return None


def mirrors(ctx: CheckContext, outputs: Sequence[Point]) -> list[tuple[Point, Point]]:
    """Each output whose mirror is served, with the mirror; the others are noted once."""
    found: list[tuple[Point, Point]] = []
    for output in outputs:
        mirror = ctx.point_map.mirror(output)
        if mirror is not None and ctx.serves(mirror):
            found.append((output, mirror))
            continue
        note = f"{output.address} has no mirror served: written, not read back"
        if note not in ctx.notes:
            ctx.note(note)
    return found


async def read_back(ctx: CheckContext, values: Values, what: str, flags: Flags = "any") -> None:
    """Each written output's mirror reads its value back with ``flags`` (see the module's
    notes); retried until settle, the last problems standing."""
    pairs = mirrors(ctx, [p for p, _ in values])
    if not pairs:
        return
    written = {str(p.address): v for p, v in values}

    async def attempt() -> None:
        readings = await ctx.read([m for _, m in pairs])
        problems: list[str] = []
        for output, mirror in pairs:
            reading = readings[str(mirror.address)]
            problem = _mismatch(output, written[str(output.address)], mirror, reading)
            if problem is None and reading.quality != "not_reported":
                problem = _judge_flags(reading, flags)
            if problem is not None:
                problems.append(problem)
        _fail_with(what, problems)

    await eventually(ctx.settle, attempt, clock=ctx.clock)


async def write(ctx: CheckContext, values: Values, what: str, flags: Flags = "any") -> None:
    """:func:`operate` then :func:`read_back`."""
    await operate(ctx, values, what)
    await read_back(ctx, values, what, flags)


async def states(
    ctx: CheckContext, expected: Sequence[tuple[Point, bool]], what: str, *, wait: bool = True
) -> None:
    """The binary inputs read in the states expected; retried until settle (``wait``) or
    read once."""
    points = [p for p, _ in expected]

    async def attempt() -> None:
        readings = await ctx.read(points)
        problems = []
        for point, state in expected:
            reading = readings[str(point.address)]
            if reading.value is not state:
                seen = "not reported" if reading.quality == "not_reported" else reading.value
                problems.append(f"{point.address} ({point.label}) is {seen}, not {state}")
        _fail_with(what, problems)

    if wait:
        await eventually(ctx.settle, attempt, clock=ctx.clock)
    else:
        await attempt()


async def found_values(ctx: CheckContext, outputs: Sequence[Point]) -> Values:
    """What ``outputs`` hold now (their output status), to be put back; an output not
    reported cannot be put back: it is left out, with a note."""
    if not outputs:
        return []
    readings = await ctx.read(outputs)
    found: Values = []
    for point in outputs:
        reading = readings[str(point.address)]
        raw = reading.raw
        if raw is None:
            ctx.note(f"{point.address} was not reported: it cannot be put back as found")
            continue
        found.append((point, bool(raw) if point.kind is Kind.BO else raw))
    return found


class Kept:
    """Outputs as found, put back (one request) when the check ends once :meth:`changed`
    says it wrote them, and at once by :meth:`put_back`."""

    def __init__(self, ctx: CheckContext, found: Values, what: str) -> None:
        self.ctx = ctx
        self.found = found
        self.what = what
        self.dirty = False
        ctx.restore(what, self._undo)

    def changed(self) -> None:
        self.dirty = True

    async def put_back(self) -> None:
        """Write the found values back now (accepted), once."""
        if self.dirty and self.found:
            await operate(self.ctx, self.found, f"putting back {self.what}")
        self.dirty = False

    async def _undo(self) -> None:
        await self.put_back()


async def keep(ctx: CheckContext, outputs: Sequence[Point], what: str) -> Kept:
    """:func:`found_values` of ``outputs``, kept to be put back."""
    return Kept(ctx, await found_values(ctx, outputs), what)


async def toggle(ctx: CheckContext, output: Point, mirror: Point, what: str) -> str:
    """Latch ``output`` to the state its mirror does not show, then back, the mirror
    following each time; put back as found however the check ends. Answers what was seen
    ("BO5 latched off and back on, BI23 following within 0.6 s")."""
    readings = await ctx.read([mirror])
    found = readings[str(mirror.address)].value
    if not isinstance(found, bool):
        raise Failed(f"{what}: {mirror.address}, the mirror of {output.address}, was not reported")
    kept = Kept(ctx, [(output, found)], f"{output.address} as found ({shown(output, found)})")
    slowest = 0.0
    for state in (not found, found):
        kept.changed()
        latched = f"{output.address} latched {shown(output, state)}"
        started = ctx.clock.monotonic()
        await operate(ctx, [(output, state)], f"{what}: {latched}")
        await states(ctx, [(mirror, state)], f"{what}: after {latched}")
        slowest = max(slowest, ctx.clock.monotonic() - started)
    kept.dirty = False
    return (
        f"{output.address} latched {shown(output, not found)} and back "
        f"{shown(output, found)}, {mirror.address} following within {took(slowest)}"
    )


async def flagged(
    ctx: CheckContext, points: Sequence[Point], flags: Flags, what: str, *, wait: bool = True
) -> None:
    """Each of ``points`` (inputs) reported with ``flags`` (online or offline); retried until
    settle (``wait``) or read once, every point that is not listed."""
    if not points:
        return

    async def attempt() -> None:
        readings = await ctx.read(points)
        problems = [
            problem
            for point in points
            if (problem := _judge_flags(readings[str(point.address)], flags)) is not None
        ]
        _fail_with(what, problems)

    if wait:
        await eventually(ctx.settle, attempt, clock=ctx.clock)
    else:
        await attempt()
