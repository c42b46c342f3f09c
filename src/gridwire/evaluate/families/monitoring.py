"""MON-001, ALARM-001 and OP-001: what the outstation reports of itself (reads only).

- MON-001 Monitoring: the served points of AI533-AI556 (the system meter) each online,
  numeric, with a transmitted value within the tables' range. None served: not applicable.
  Noted: "N of 24 served".
- ALARM-001 Alarm reporting: the served points of BI0-BI9 and BI94-BI105 each online; the
  alarms raised (set) are noted.
- OP-001 Operating states: the served points of BI10-BI22 online; BI14 (started) and BI15
  (stopped) not both set; at most one of BI18-BI22 set, exactly one when all five are served.

Each reads its points in one request (range by range when refused whole). A check lists
every point that is wrong (the first 8), not only the first. A check that passes says what
it read, with the figures ("22 of 22 alarm points online, none raised").
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from gridwire.der.points import Point
from gridwire.derops.readings import DerReading
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import online

LISTED = 8


def _served(ctx: CheckContext, kind: str, indexes: Iterable[int]) -> list[Point]:
    return ctx.served_points(ctx.point_map.get(kind, i) for i in indexes)


def _fail_with(problems: list[str]) -> None:
    if problems:
        more = f"; and {len(problems) - LISTED} more" if len(problems) > LISTED else ""
        raise Failed("; ".join(problems[:LISTED]) + more)


async def _online(
    ctx: CheckContext, points: list[Point]
) -> tuple[dict[str, DerReading], list[str]]:
    """The readings of ``points``, and what is wrong with their flags (one line each)."""
    readings = await ctx.read(points)
    problems: list[str] = []
    for point in points:
        try:
            online(readings[str(point.address)])
        except Failed as exc:
            problems.append(exc.detail)
    return readings, problems


def _transmitted(point: Point, reading: DerReading) -> float | None:
    """The value as transmitted (a float variation's engineering value scaled back)."""
    raw = reading.raw
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, float):
        if not math.isfinite(raw):
            return None
        return (raw - point.offset) / point.multiplier if point.multiplier else None
    return float(raw)


async def mon_001(ctx: CheckContext) -> None:
    points = _served(ctx, "AI", range(533, 557))
    if not points:
        raise NotApplicable("none of AI533-AI556 (the system meter) is served")
    ctx.note(f"{len(points)} of 24 served")
    readings, problems = await _online(ctx, points)
    for point in points:
        reading = readings[str(point.address)]
        if reading.quality == "not_reported":
            continue
        value = _transmitted(point, reading)
        if value is None:
            problems.append(f"{point.address} reported {reading.raw!r}, not a number")
            continue
        low, high = point.minimum, point.maximum
        if (low is not None and value < low) or (high is not None and value > high):
            problems.append(
                f"{point.address} reported {reading.raw} (transmitted), outside the tables' "
                f"range {low if low is not None else '-'}..{high if high is not None else '-'}"
            )
    _fail_with(problems)
    ctx.verified(
        f"{len(points)} of 24 system meter points (AI533-AI556) online, numeric and within "
        "the tables' ranges"
    )


async def alarm_001(ctx: CheckContext) -> None:
    points = _served(ctx, "BI", [*range(0, 10), *range(94, 106)])
    if not points:
        raise NotApplicable("none of BI0-BI9 and BI94-BI105 (the alarms) is served")
    readings, problems = await _online(ctx, points)
    raised = [p for p in points if readings[str(p.address)].value is True]
    if raised:
        ctx.note("alarms raised: " + ", ".join(f"{p.address} ({p.label})" for p in raised))
    _fail_with(problems)
    ctx.verified(
        f"{len(points)} of 22 alarm points (BI0-BI9, BI94-BI105) online, "
        + (f"{len(raised)} raised" if raised else "none raised")
    )


async def op_001(ctx: CheckContext) -> None:
    points = _served(ctx, "BI", range(10, 23))
    if not points:
        raise NotApplicable("none of BI10-BI22 (the operating states) is served")
    readings, problems = await _online(ctx, points)

    def is_set(index: int) -> bool:
        found = readings.get(f"BI{index}")
        return found is not None and found.value is True

    if is_set(14) and is_set(15):
        problems.append("BI14 (started) and BI15 (stopped) are both set")
    states = [p for p in points if 18 <= p.index <= 22]
    on = [str(p.address) for p in states if is_set(p.index)]
    if len(on) > 1:
        problems.append(f"more than one of BI18-BI22 is set: {', '.join(on)}")
    elif len(states) == 5 and not on:
        problems.append("none of BI18-BI22 is set; with all five served, exactly one must be")
    _fail_with(problems)
    ctx.verified(f"{len(points)} of 13 operating state points (BI10-BI22) online")
    run = [f"BI{i}" for i in (14, 15) if ctx.serves(f"BI{i}")]
    if run:
        shown = ", ".join(f"{a} {'set' if is_set(int(a[2:])) else 'clear'}" for a in run)
        ctx.verified(f"not both started and stopped ({shown})")
    if states:
        ctx.verified(
            f"{len(on)} of the {len(states)} of BI18-BI22 served set"
            + (f" ({on[0]})" if on else "")
        )
