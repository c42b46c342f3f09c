"""What several checks share (D97-D101), each pinned by its own tests.

- :func:`accepted` and :func:`refused` judge a control's Operate result; :func:`answered` an
  exchange. No answer to any request fails the check, naming what was asked.
- :func:`online` and :func:`offline` judge a point as read (a
  :class:`~gridwire.derops.readings.DerReading`); :func:`eventually` retries a judgement
  every 0.5 s until ``settle`` seconds have passed, the last failure standing.
- :func:`test_values` and :func:`tolerance`: the values an analog output is written with (as
  transmitted) and how near its mirror must read back (engineering units).
- :func:`curve_count` (and the rule itself, :func:`count_curves`): how many curves the
  outstation stores; :data:`SAMPLE_CURVES` and :func:`release`.

Each raises :class:`~gridwire.evaluate.outcomes.Failed` with a detail naming what was seen.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, TypeVar

from gridwire.der.points import Number, Point, spelled
from gridwire.derops.curve import curve_block_of, selector_control
from gridwire.derops.readings import DerReading
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.master.records import Exchange, OperateResult
from gridwire.process.clock import SYSTEM_CLOCK, Clock

T = TypeVar("T")

SUCCESS: Final = "SUCCESS"
OUT_OF_RANGE: Final = "OUT_OF_RANGE"
RETRY_INTERVAL: Final = 0.5
"""Seconds between two tries of :func:`eventually`."""
MOST_CURVES: Final = 64
"""Curves :func:`curve_count` selects at most (or the selector's maximum, when lower)."""


# --- answers and controls ------------------------------------------------------------------


def answered(exchange: Exchange, what: str) -> None:
    """Failed "no answer to <what>" unless the exchange ended complete."""
    if exchange.outcome != "complete":
        raise Failed(f"no answer to {what} ({exchange.outcome})")


def _answered_operate(result: OperateResult, what: str) -> None:
    if not result.exchanges:
        raise Failed(f"{what}: nothing was sent")
    for exchange in result.exchanges:
        answered(exchange, what)


def accepted(result: OperateResult, what: str) -> None:
    """Every control came back SUCCESS and echoed as sent; else Failed naming the status."""
    _answered_operate(result, what)
    if not result.statuses:
        indications = ", ".join(result.exchanges[-1].indications) or "none"
        raise Failed(f"{what} was not accepted: no status came back (indications {indications})")
    for status in result.statuses:
        point = spelled(status.type, status.index)
        if status.status != SUCCESS:
            raise Failed(f"{what} was refused: {point} {status.status or 'no status'}")
        if not status.echoed:
            raise Failed(f"{what}: {point} came back SUCCESS but not as it was sent")


def refused(ctx: CheckContext, result: OperateResult, what: str, usual: str) -> str:
    """Every control was refused; Failed "<what> was accepted" otherwise. A refusal with a
    status other than ``usual`` passes, with a note naming both (once per status, however
    many controls the request carried). Answers how it was refused ("BLOCKED", "BLOCKED and
    NOT_SUPPORTED", "with no status"), for the detail of a check that passes."""
    _answered_operate(result, what)
    if not result.statuses:
        indications = ", ".join(result.exchanges[-1].indications) or "none"
        ctx.note(f"{what} was refused with no status (indications {indications}), not {usual}")
        return "with no status"
    for status in result.statuses:
        point = spelled(status.type, status.index)
        if status.status == SUCCESS:
            raise Failed(f"{what} was accepted ({point} SUCCESS)")
    others = {s.status: None for s in result.statuses if s.status != usual}
    for other in others:
        ctx.note(f"{what} was refused {other or 'with no status'}, not {usual}")
    seen = {s.status or "no status": None for s in result.statuses}
    return " and ".join(seen)


# --- points as read ------------------------------------------------------------------------


def online(reading: DerReading) -> None:
    """Reported, and its flags (less a binary state bit) exactly ONLINE, or reported in a
    variation without flags."""
    if reading.quality == "not_reported":
        raise Failed(f"{reading.address} was not reported")
    flags = reading.flags
    if flags is not None and flags != ["ONLINE"]:
        shown = ", ".join(flags) or "none"
        raise Failed(f"{reading.address} is not online: flags {shown}, not exactly ONLINE")


def offline(reading: DerReading) -> None:
    """Reported with flags 0. A variation without flags fails: it says ONLINE."""
    if reading.quality == "not_reported":
        raise Failed(f"{reading.address} was not reported")
    if reading.flags is None:
        raise Failed(
            f"{reading.address} is reported in a variation without flags, which says ONLINE, "
            "not offline"
        )
    if reading.flags:
        raise Failed(f"{reading.address} is not offline: flags {', '.join(reading.flags)}")


async def eventually(
    settle: float, attempt: Callable[[], Awaitable[T]], *, clock: Clock = SYSTEM_CLOCK
) -> T:
    """``attempt()``, tried again every :data:`RETRY_INTERVAL` seconds while it raises
    Failed, until ``settle`` seconds have passed on ``clock``; then its last failure stands."""
    deadline = clock.monotonic() + settle
    while True:
        try:
            return await attempt()
        except Failed:
            if clock.monotonic() + RETRY_INTERVAL > deadline:
                raise
        await asyncio.sleep(RETRY_INTERVAL)


# --- analog test values --------------------------------------------------------------------


def test_values(point: Point) -> tuple[Number, Number]:
    """The two values (sets 0 and 1) an analog output is written with, as transmitted:
    low = the tables' minimum or 0; high = the maximum or low + 100 (when high < low,
    low = high - 100); span = min(high - low, 400); low + max(1, span // 4) and
    low + max(2, span // 2)."""
    low: Number = point.minimum if point.minimum is not None else 0
    high: Number = point.maximum if point.maximum is not None else low + 100
    if high < low:
        low = high - 100
    span = min(high - low, 400)
    return low + max(1, span // 4), low + max(2, span // 2)


test_values.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def tolerance(output: Point, mirror: Point | None) -> float:
    """How far (engineering units) a mirror may read from what was written: half the larger
    multiplier of the output and its mirror."""
    multipliers = [abs(output.multiplier)]
    if mirror is not None:
        multipliers.append(abs(mirror.multiplier))
    return max(multipliers) / 2


def within(value: float | None, expected: float, allowed: float) -> bool:
    """Whether ``value`` is reported and lies within ``allowed`` of ``expected``."""
    return value is not None and math.isfinite(value) and abs(value - expected) <= allowed


# --- curves --------------------------------------------------------------------------------


Select = Callable[[int], Awaitable[str | None]]
"""Selects a curve by number; the status the selector came back with (None: no answer)."""


async def count_curves(select: Select, most: int) -> int:
    """Curves stored: select 1, 2, ... up to ``most`` until a selection is refused
    OUT_OF_RANGE (then the one before is the last); ``most`` when none is. Any other refusal
    is not "no curves": Failed naming the status."""
    for number in range(1, most + 1):
        status = await select(number)
        if status is None:
            raise Failed(f"no answer to selecting curve {number}")
        if status == OUT_OF_RANGE:
            return number - 1
        if status != SUCCESS:
            raise Failed(
                f"selecting curve {number} was refused {status}, not OUT_OF_RANGE: how many "
                "curves the outstation stores cannot be told"
            )
    return most


async def curve_count(ctx: CheckContext) -> int:
    """The number of curves: ``curves`` as given to the run; else found once per run by
    :func:`count_curves` (at most min(64, the selector's maximum)); a refusal that made it
    impossible fails every check that asks again. Counting leaves the curve shown as found:
    the selector's readback is read first and that curve selected again after (one control).
    NotApplicable without a curve block."""
    run = ctx.run
    if run.curves is not None:
        return run.curves
    if run.curves_found is not None:
        return run.curves_found
    if run.curves_problem is not None:
        raise Failed(run.curves_problem)
    if ctx.point_map.curve_block is None:
        raise NotApplicable("the profile has no curve block")
    block = curve_block_of(ctx.point_map)
    selector = ctx.point_map.get("AO", block.selector)
    maximum = selector.maximum if selector is not None else None
    most = MOST_CURVES if maximum is None else max(0, min(MOST_CURVES, int(maximum)))

    async def select(number: int) -> str | None:
        control = selector_control(ctx.point_map, number)
        result = await ctx.master.operate_controls(ctx.outstation, [control])
        if not result.exchanges or result.exchanges[-1].outcome != "complete":
            return None
        return result.statuses[0].status if result.statuses else "no status"

    shown = await _curve_shown(ctx, block.readback)
    try:
        run.curves_found = await count_curves(select, most)
    except Failed as exc:
        if not exc.detail.startswith("no answer"):
            run.curves_problem = exc.detail
            await _select_again(ctx, select, shown)
        raise
    await _select_again(ctx, select, shown)
    return run.curves_found


async def _curve_shown(ctx: CheckContext, readback: int) -> int | None:
    """The curve the selector's readback shows (None when not served or not a number)."""
    point = ctx.point_map.get("AI", readback)
    if point is None or not ctx.serves(point):
        return None
    raw = (await ctx.read([point]))[str(point.address)].raw
    return raw if isinstance(raw, int) and not isinstance(raw, bool) else None


async def _select_again(ctx: CheckContext, select: Select, shown: int | None) -> None:
    """Counting moved the selector: select the curve found shown again (one control, sent
    once); a refusal is noted, as a failed restore is."""
    if shown is None:
        return
    status = await select(shown)
    if status != SUCCESS:
        ctx.note(
            f"selecting curve {shown} (shown before counting) again was "
            + ("not answered" if status is None else f"refused {status}")
        )


@dataclass(frozen=True, slots=True)
class SampleCurve:
    """A curve the curve checks store: the setting (AO) that names curves of its kind, its
    type, X and Y units, and its points as transmitted."""

    setting: int
    type: int
    x_units: int
    y_units: int
    points: tuple[tuple[int, int], ...]


SAMPLE_CURVES: Final[dict[int, tuple[SampleCurve, SampleCurve]]] = {
    173: (  # volt-watt
        SampleCurve(173, 5, 129, 5, ((1000, 1000), (1060, 1000), (1100, 200))),
        SampleCurve(173, 5, 129, 5, ((1000, 1000), (1050, 1000), (1090, 0))),
    ),
    217: (  # volt-var
        SampleCurve(217, 2, 129, 2, ((920, 300), (980, 0), (1020, 0), (1080, -300))),
        SampleCurve(217, 2, 129, 2, ((900, 440), (970, 0), (1030, 0), (1100, -440))),
    ),
}
"""The sample curves by setting: two each, for value sets 0 and 1."""


def curve_settings(ctx: CheckContext) -> list[Point]:
    """Every served setting that names a curve (the functions' curve references)."""
    indexes = sorted({ref.setting for f in ctx.point_map.functions for ref in f.curves})
    return ctx.served_points(ctx.point_map.get("AO", index) for index in indexes)


async def release(ctx: CheckContext) -> None:
    """ "Release": write 0 to every served curve setting (one request), accepted."""
    settings = curve_settings(ctx)
    if not settings:
        return
    result = await ctx.der.write({str(p.address): 0 for p in settings})
    for exchange in result.exchanges:
        answered(exchange, "releasing the curves")
    for point in result.points:
        if point.status != SUCCESS:
            raise Failed(f"releasing the curves: {point.address} was refused {point.status}")
