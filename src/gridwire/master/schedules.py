"""Scans on a schedule: :class:`Schedules` runs a scan of a kind every so many seconds
(``repeat`` and the periodic scans of the settings), at least :data:`MIN_SCAN_INTERVAL`
apart; setting a kind again cancels its loop, abandoning the scan under way. While the
outstation is not connected a schedule waits for the connection, doing nothing; the first
scan goes as soon as it is made. Their requests carry ``task: "repeat"``; they are not
automatic tasks (no trigger, no priority, no setting of their own there).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable

from gridwire.errors import BadParameter, GridwireError
from gridwire.master.settings import MIN_SCAN_INTERVAL
from gridwire.process.timers import timers

log = logging.getLogger(__name__)


class Schedules:
    """Scans on a schedule: kind -> interval in seconds, each run by its own loop.

    ``ready()`` says whether a scan can be made now: None when it can, else an awaitable
    that ends once it can (the connection is made again); the loop waits on it rather than
    trying a scan that would fail at once."""

    def __init__(
        self,
        scan: Callable[[str], Awaitable[object]],
        now: Callable[[], float],
        ready: Callable[[], Awaitable[object] | None] = lambda: None,
    ):
        self._scan = scan
        self._now = now
        self._ready = ready
        self._intervals: dict[str, float] = {}
        self._loops: dict[str, asyncio.Task[None]] = {}

    def as_dict(self) -> dict[str, float]:
        return dict(self._intervals)

    def set(self, kind: str, interval: float | None) -> None:
        """Scan ``kind`` every ``interval`` seconds from now (the first at once); None ends
        the schedule. Either way a scan of the old schedule still under way is abandoned.
        RequestError, and nothing changes, for an interval under :data:`MIN_SCAN_INTERVAL`."""
        if interval is not None and not (math.isfinite(interval) and interval >= MIN_SCAN_INTERVAL):
            raise BadParameter(
                f"interval {interval:g} s is refused: the minimum between scans is "
                f"{MIN_SCAN_INTERVAL:g} s (and an interval is a finite number)"
            )
        loop_task = self._loops.pop(kind, None)
        if loop_task is not None:
            loop_task.cancel()
        self._intervals.pop(kind, None)
        if interval is None:
            return
        self._intervals[kind] = interval
        self._loops[kind] = asyncio.get_running_loop().create_task(self._run(kind, interval))

    def close(self) -> None:
        for kind in list(self._intervals):
            self.set(kind, None)

    async def _run(self, kind: str, interval: float) -> None:
        next_at = self._now()
        while True:
            waiting = self._ready()
            if waiting is not None:
                await waiting
                next_at = self._now()
            try:
                await self._scan(kind)
            except GridwireError as exc:
                log.debug("scheduled %s scan not made: %s", kind, exc)
            next_at += interval
            delay = next_at - self._now()
            if delay < 0:
                next_at = self._now()
                delay = 0.0
            await timers().sleep(delay)  # one heap of timers for every schedule (D224)
