"""CONN-001, SERV-001, SERV-001.2 and SERV-001.3: connecting, stopping and starting the DER
(each writes; each puts back what it changed however it ends).

- CONN-001 Connect and disconnect: needs BO5 (the connect/disconnect switch) and its mirror
  served, else not applicable. The served mirrors of AO16-AO17 and BI24 (switch moving)
  online; AO16-AO17 written with value set 0 then 1 and read back; BO5 latched to the other
  state and back, its mirror following each time.
- SERV-001 Cease to energize and return to service: needs BO1-BO4 and BI12-BI15. AO6-AO15
  written with value sets 0 and 1 and read back (an output with no mirror served is noted),
  then put back as found before the DER is stopped or started, so that the start limits and
  delays written (a start delay of minutes, say) do not hold its start; BO4 then BO3 toggled
  where their mirror is served. Then from the state found, stop and start (or start and
  stop): each latch (BO2 on to stop, BO1 on to start) accepted, within settle the target
  state (BI15 stopped, BI14 started) true, the opposite state and the start's under-way flag
  (BI12, starting up) false; after the stop, BO2's mirror (BI13, ceasing to energize) true.
- SERV-001.2: stopped first; BO3 (permission to start) withdrawn; the start is refused
  (usual BLOCKED), BO1's mirror (BI12) false; min(settle, 3 s) later BI15 still true (and
  BI14 false).
- SERV-001.3, its mirror image: started first; BO4 (permission to stop) withdrawn; the stop
  is refused (usual BLOCKED), BO2's mirror (BI13) false; after the same wait BI14 true and
  BI15 false.

Before it stops or starts the DER, a check grants the permission the command needs (BO3
or BO4 latched on) when it is not granted. The run state found, the permissions and every
output written are put back when the check ends.

A pass says what was verified, with its figures: the outputs written and read back, each
toggle and how soon its mirror followed, the run state found and how soon each command
showed ("found started: stopped within 520 ms of the command, then started within 510 ms"),
how a command without permission was refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gridwire.der.points import Point
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.outputs import (
    Kept,
    flagged,
    found_values,
    keep,
    mirrors,
    operate,
    set_of,
    span,
    states,
    toggle,
    took,
    write,
)
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import eventually, refused
from gridwire.master.controls import Control

BLOCKED = "BLOCKED"
REFUSED_WAIT = 3.0
"""Seconds (at most; settle when shorter) a refused start or stop is given to show itself."""
RunState = Literal["started", "stopped"]


def _missing(ctx: CheckContext, addresses: Sequence[str]) -> list[str]:
    return [a for a in addresses if not ctx.serves(a)]


def _need(ctx: CheckContext, addresses: Sequence[str]) -> dict[str, Point]:
    missing = _missing(ctx, addresses)
    if missing:
        raise NotApplicable(f"{', '.join(missing)} not served")
    found = {a: ctx.point(a) for a in addresses}
    return {a: p for a, p in found.items() if p is not None}


async def _written_with_sets(ctx: CheckContext, outputs: list[Point], what: str) -> Kept:
    """``outputs`` written with value set 0 then 1, each read back; kept as found."""
    kept = await keep(ctx, outputs, f"{what} as found")
    for number in (0, 1):
        kept.changed()
        await write(ctx, set_of(outputs, number), f"{what}, value set {number}")
    return kept


# --- CONN-001 ------------------------------------------------------------------------------


async def conn_001(ctx: CheckContext) -> None:
    switch = ctx.point("BO5")
    mirror = None if switch is None else ctx.point_map.mirror(switch)
    if switch is None or not ctx.serves(switch) or mirror is None or not ctx.serves(mirror):
        raise NotApplicable("BO5 (the connect/disconnect switch) and its mirror are not served")
    settings = ctx.served_points(["AO16", "AO17"])
    watched = [m for _, m in mirrors(ctx, settings)] + ctx.served_points(["BI24"])
    await flagged(ctx, watched, "online", "before the switch is operated", wait=False)
    if watched:
        ctx.verified(f"{span(watched)} online")
    if settings:
        await _written_with_sets(ctx, settings, "the connect/disconnect settings")
        ctx.verified(f"{span(settings)} written with value sets 0 and 1 and read back")
    else:
        ctx.note("AO16-AO17 not served: no setting written")
    ctx.verified(await toggle(ctx, switch, mirror, "the connect/disconnect switch"))


# --- the run state -------------------------------------------------------------------------


@dataclass(slots=True)
class Service:
    """The points of the service checks (BO1-BO4, BI12-BI15) and what a check must put
    back: the permissions it granted or withdrew, the run state found."""

    ctx: CheckContext
    points: dict[str, Point]

    @property
    def started(self) -> Point:
        return self.points["BI14"]

    @property
    def stopped(self) -> Point:
        return self.points["BI15"]

    @property
    def starting(self) -> Point:
        return self.points["BI12"]

    def output(self, address: str) -> Point:
        return self.points[address]

    async def state(self) -> RunState:
        """Started or stopped, waiting up to settle for one of them to hold alone."""
        found: list[RunState] = []

        async def attempt() -> None:
            readings = await self.ctx.read([self.started, self.stopped])
            started = readings[str(self.started.address)].value
            stopped = readings[str(self.stopped.address)].value
            if started is True and stopped is False:
                found.append("started")
            elif stopped is True and started is False:
                found.append("stopped")
            else:
                raise Failed(
                    f"the DER is neither started nor stopped: BI14 (started) {started}, "
                    f"BI15 (stopped) {stopped}"
                )

        await eventually(self.ctx.settle, attempt, clock=self.ctx.clock)
        return found[-1]

    async def permission(self, address: str, granted: bool) -> None:
        """Latch the permission ``address`` (BO3 to start, BO4 to stop) to ``granted``, its
        mirror following where served; put back as found when the check ends. Nothing is
        sent when it already stands so (by its mirror, else its output status)."""
        output = self.output(address)
        mirror = self.ctx.point_map.mirror(output)
        shows = mirror if mirror is not None and self.ctx.serves(mirror) else output
        readings = await self.ctx.read([shows])
        if readings[str(shows.address)].value is granted:
            return
        found = await found_values(self.ctx, [output])
        kept = Kept(self.ctx, found, f"{address} as found")
        kept.changed()
        what = f"{'granting' if granted else 'withdrawing'} {address} ({output.label})"
        await operate(self.ctx, [(output, granted)], what)
        if shows is mirror:
            await states(self.ctx, [(mirror, granted)], f"{what}: its mirror")

    async def command(self, target: RunState) -> float:
        """Stop (BO2 on) or start (BO1 on), with its permission granted; the latch accepted,
        within settle the target state true, the opposite and BI12 (starting up) false;
        after a stop BO2's mirror true. Answers the seconds from the command to the states
        read so."""
        stop = target == "stopped"
        await self.permission("BO4" if stop else "BO3", True)
        output = self.output("BO2" if stop else "BO1")
        what = "the stop (BO2 on)" if stop else "the start (BO1 on)"
        started = self.ctx.clock.monotonic()
        await operate(self.ctx, [(output, True)], what)
        expected = [
            (self.stopped, stop),
            (self.started, not stop),
            (self.starting, False),
        ]
        mirror = self.ctx.point_map.mirror(output)
        if stop and mirror is not None and self.ctx.serves(mirror):
            expected.append((mirror, True))
        await states(self.ctx, expected, f"after {what}")
        return self.ctx.clock.monotonic() - started

    def keep_run_state(self, found: RunState) -> None:
        """Put the run state found back when the check ends (when it changed)."""

        async def undo() -> None:
            if await self.state() != found:
                await self.command(found)

        self.ctx.restore(f"the run state as found ({found})", undo)


_SERVICE_POINTS = ("BO1", "BO2", "BO3", "BO4", "BI12", "BI13", "BI14", "BI15")


def _service(ctx: CheckContext) -> Service:
    return Service(ctx, _need(ctx, _SERVICE_POINTS))


# --- SERV-001 ------------------------------------------------------------------------------


async def serv_001(ctx: CheckContext) -> None:
    service = _service(ctx)
    settings = ctx.served_points(f"AO{i}" for i in range(6, 16))
    if settings:
        kept = await _written_with_sets(ctx, settings, "the start and stop settings (AO6-AO15)")
        await kept.put_back()
        ctx.verified(f"{span(settings)} written with value sets 0 and 1, read back, put back")
    else:
        ctx.note("none of AO6-AO15 is served: no setting written")
    for address in ("BO4", "BO3"):
        output = service.output(address)
        mirror = ctx.point_map.mirror(output)
        if mirror is None or not ctx.serves(mirror):
            ctx.note(f"{address} has no mirror served: not toggled")
            continue
        ctx.verified(await toggle(ctx, output, mirror, f"{address} ({output.label})"))
    found = await service.state()
    service.keep_run_state(found)
    order: tuple[RunState, RunState] = (
        ("stopped", "started") if found == "started" else ("started", "stopped")
    )
    ctx.note(f"found {found}")
    seconds = [await service.command(target) for target in order]
    ctx.verified(
        f"found {found}: {order[0]} within {took(seconds[0])} of the command, then "
        f"{order[1]} within {took(seconds[1])}"
    )


# --- SERV-001.2 and SERV-001.3 -------------------------------------------------------------


async def serv_001_2(ctx: CheckContext) -> None:
    await _without_permission(_service(ctx), "started")


async def serv_001_3(ctx: CheckContext) -> None:
    await _without_permission(_service(ctx), "stopped")


async def _without_permission(service: Service, target: RunState) -> None:
    """From the other state, with the permission ``target`` needs withdrawn, the command
    (BO1 on to start, BO2 on to stop) refused, its mirror false; after the wait the DER
    still in the other state."""
    ctx = service.ctx
    stop = target == "stopped"
    held: RunState = "started" if stop else "stopped"
    found = await service.state()
    service.keep_run_state(found)
    if found != held:
        await service.command(held)
    await service.permission("BO4" if stop else "BO3", False)
    output = service.output("BO2" if stop else "BO1")
    permission = service.output("BO4" if stop else "BO3")
    command = f"the {'stop' if stop else 'start'} ({output.address} on)"
    what = f"{command} without permission"
    result = await ctx.master.operate_controls(ctx.outstation, [_latch_on(output)])
    how = refused(ctx, result, what, BLOCKED)
    mirror = ctx.point_map.mirror(output)
    shown = ""
    if mirror is not None and ctx.serves(mirror):
        await states(ctx, [(mirror, False)], f"after {what} was refused", wait=False)
        shown = f", {mirror.address} off"
    wait = min(ctx.settle, REFUSED_WAIT)
    await asyncio.sleep(wait)
    expected = [(service.started, stop), (service.stopped, not stop)]  # still as held
    await states(ctx, expected, f"{wait:g} s after {what} was refused", wait=False)
    ctx.verified(
        f"{held}, with {permission.address} ({permission.label}) withdrawn: {command} refused "
        f"{how}{shown}; {wait:g} s later still {held} (BI14 {_on(stop)}, BI15 {_on(not stop)})"
    )


def _on(state: bool) -> str:
    return "on" if state else "off"


def _latch_on(output: Point) -> Control:
    return Control("bo", output.index, True)
