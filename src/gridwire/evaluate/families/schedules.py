"""The schedule checks (each writes): SCHED-001 and SCHED-002, on a
:class:`~.schedule_lab.Bench` (the last stored schedule, N, read first and put back).

- SCHED-001 Schedule editing: a schedule written (der.write_schedule: selector, fields,
  points) reads back as written; set ready (in use), an edit of its priority and of its
  first point's value (one request) is refused (usual AUTOMATION_INHIBIT, as an edit of a
  curve an enabled function uses) and it reads back unchanged; set not ready again; selecting
  schedule N+1 is refused (usual OUT_OF_RANGE) and the selector's readback still reads N.
  Without a ready output in the tables the lock is not judged (noted).
- SCHED-002 A schedule runs: schedule N, of a type whose output it can watch
  (:data:`~.schedule_lab.TARGETS`), starts a second on (by the master's clock, which the
  DER's is taken to follow: a master keeps it set by the time tasks) with three points:
  value A at once, B :data:`STEP_S` seconds later, A again twice that later. Set ready, the
  output the type names (read on its mirror input) reads A within ``settle`` of the start
  and B within ``settle`` of the second point's time; set not ready, it still reads B once
  the third point's time and ``settle`` (at most :data:`STEP_S`) have passed. The output is
  written back as found after.
"""

from __future__ import annotations

import asyncio
import time

from gridwire.der.points import Kind, Point
from gridwire.derops.readings import DerReading
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.schedule_lab import TARGETS, Bench, Sample, int_range, shows
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import (
    OUT_OF_RANGE,
    RETRY_INTERVAL,
    accepted,
    refused,
    test_values,
)
from gridwire.master.controls import Control

AUTOMATION_INHIBIT = "AUTOMATION_INHIBIT"
LEAD_S = 1
STEP_S = 2
"""Seconds between the points SCHED-002 writes (whole seconds: offsets are)."""


def _kind(bench: Bench) -> int:
    """A type the tables let the schedule hold: a watched one first, else the first listed."""
    for kind in TARGETS:
        if bench.allowed("type", kind):
            return kind
    point = bench.output("type")
    listed = [e.value for e in (point.enumeration or ()) if e.value] if point else []
    return listed[0] if listed else 1


def _two_values(bench: Bench, within: tuple[int, int]) -> tuple[int, int]:
    """Two values point 1's value output takes that also lie ``within`` (as transmitted)."""
    index = bench.block.offset_output(1) + 1
    low, high = int_range(bench.ctx.point_map.get(Kind.AO, index), within)
    low, high = max(low, within[0]), min(high, within[1])
    if high - low < 2:
        raise NotApplicable(f"no two values fit both AO{index} and {within[0]} to {within[1]}")
    a, b = test_values(Point(Kind.AO, index, "the values tried", minimum=low, maximum=high))
    return int(a), int(b)


async def sched_001(ctx: CheckContext) -> None:
    bench = await Bench.open(ctx)
    n = bench.number
    a, b = _two_values(bench, (0, 100))
    sample = bench.sample(_kind(bench), [[0, a], [60, b]], bench.future_start())
    await bench.write(sample, f"writing schedule {n}")
    ctx.verified(f"schedule {n} written (type {sample.values.get('type')}, 2 points) and read back")
    block = bench.block
    if block.ready is not None and ctx.serves(f"BO{block.ready}"):
        await bench.ready(True, f"setting schedule {n} ready")
        locked = await _locked(bench, sample, a, b)
        await bench.ready(False, f"setting schedule {n} not ready")
        ctx.verified(locked)
    else:
        ctx.note(
            "the tables have no ready output served: the lock on a schedule in use is not judged"
        )
    beyond = bench.count + 1
    what = f"selecting schedule {beyond} ({bench.count} stored)"
    control = Control("ao", block.selector, beyond)
    result = await ctx.master.operate_controls(ctx.outstation, [control])
    how = refused(ctx, result, what, OUT_OF_RANGE)
    readback = ctx.point_map.get(Kind.AI, block.readback or 0)
    if readback is not None:
        now = (await ctx.read([readback]))[str(readback.address)].raw
        if now != n:
            raise Failed(f"after {what} was refused, {readback.address} reads {now}, not {n}")
    ctx.verified(f"{what} refused {how}; the selector still reads {n}")


async def _locked(bench: Bench, sample: Sample, a: int, b: int) -> str:
    """Schedule N, ready, refuses an edit of its priority and its point 1 value and reads
    back unchanged; what was refused and how, for the detail."""
    ctx, block, n = bench.ctx, bench.block, bench.number
    edits = []
    priority = block.output("priority")
    held = sample.values.get("priority")
    if priority is not None and held is not None:
        edits.append(
            Control("ao", priority, held + 1 if bench.allowed("priority", held + 1) else held)
        )
    edits.append(Control("ao", block.offset_output(1) + 1, b))
    what = f"editing the priority and point 1 of schedule {n} while it is ready (in use)"
    result = await ctx.master.operate_controls(ctx.outstation, edits)
    how = refused(ctx, result, what, AUTOMATION_INHIBIT)
    reading = await ctx.der.schedule()
    if reading.points[:1] != [[0, a]] or reading.priority != held:
        raise Failed(f"after {what} was refused, schedule {n} reads {shows(reading)}")
    return f"{what}: refused {how}, read back unchanged"


async def sched_002(ctx: CheckContext) -> None:
    bench = await Bench.open(ctx)
    block, n = bench.block, bench.number
    if block.ready is None or not ctx.serves(f"BO{block.ready}"):
        raise NotApplicable("the tables have no ready output served: no schedule can be run")
    kind, target, watched = _target(bench)
    found = (await ctx.read([watched]))[str(watched.address)].raw
    if isinstance(found, bool) or not isinstance(found, int | float):
        raise Failed(f"{watched.address} (what schedule type {kind} sets) was not reported")

    async def target_back() -> None:
        result = await ctx.master.operate_controls(
            ctx.outstation, [Control("ao", target.index, int(found))]
        )
        if result.statuses and result.statuses[0].status != "SUCCESS":
            raise Failed(f"{target.address} could not be put back: {result.statuses[0].status}")

    ctx.restore(f"{target.address} put back as found", target_back)
    # Written as found first, so that the restore journal records it as found: the schedule,
    # not a control, changes it next, which the journal would not see.
    what = f"writing {target.address} as found ({int(found)}), before the schedule sets it"
    accepted(
        await ctx.master.operate_controls(
            ctx.outstation, [Control("ao", target.index, int(found))]
        ),
        what,
    )
    a, b = _two_values(bench, int_range(target, (0, 100)))
    if found == a:  # A must be a change from what the output holds
        a, b = b, a
    step = STEP_S
    start_ms = (int(time.time()) + LEAD_S + 1) * 1000
    points = [[0, a], [step, b], [2 * step, a]]
    await bench.write(bench.sample(kind, points, start_ms), f"writing schedule {n}")
    await bench.ready(True, f"setting schedule {n} ready")
    start = start_ms / 1000
    await _reads(ctx, bench, watched, a, start, "point 1 (at the start)")
    await _reads(ctx, bench, watched, b, start + step, f"point 2 ({step} s on)")
    await bench.ready(False, f"setting schedule {n} not ready")
    await _wait_until(start + 2 * step + min(ctx.settle, STEP_S))
    now = (await ctx.read([watched]))[str(watched.address)].raw
    if now != b:
        raise Failed(
            f"schedule {n} set not ready, {watched.address} reads {now}, not {b}: the DER "
            f"went on to point 3 ({2 * step} s on, value {a})"
        )
    ctx.verified(
        f"schedule {n} (type {kind}) set ready: {watched.address} read {a} at its start and "
        f"{b} {step} s on, each within {ctx.settle:g} s; set not ready, it stayed {b} past "
        f"point 3's time"
    )


def _target(bench: Bench) -> tuple[int, Point, Point]:
    """The type SCHED-002 runs, the output it sets and the input read to watch it."""
    ctx = bench.ctx
    for kind, index in TARGETS.items():
        output = ctx.point_map.get(Kind.AO, index)
        if output is None or not ctx.serves(output) or not bench.allowed("type", kind):
            continue
        mirror = ctx.point_map.mirror(output)
        return kind, output, mirror if mirror is not None and ctx.serves(mirror) else output
    listed = ", ".join(f"{k} (AO{i})" for k, i in TARGETS.items())
    raise NotApplicable(f"no schedule type whose output can be watched is taken: {listed}")


async def _wait_until(moment: float) -> None:
    delay = moment - time.time()
    if delay > 0:
        await asyncio.sleep(delay)


async def _reads(
    ctx: CheckContext, bench: Bench, watched: Point, value: int, due: float, what: str
) -> None:
    """``watched`` reads ``value`` within settle of ``due`` (UTC seconds); Failed saying what
    it read, and what the DER said of the schedule, otherwise."""
    await _wait_until(due)
    deadline = due + ctx.settle
    seen: DerReading | None = None
    while True:
        seen = (await ctx.read([watched]))[str(watched.address)]
        if seen.raw == value or time.time() >= deadline:
            break
        await asyncio.sleep(RETRY_INTERVAL)
    if seen.raw != value:
        status = await ctx.der.schedule()
        raise Failed(
            f"schedule {bench.number}'s {what}: {watched.address} reads {seen.raw}, not {value}, "
            f"{ctx.settle:g} s after it was due (the DER reports status {status.status_name or status.status}, "
            f"running schedule {status.running})"
        )
