"""The host's clocks, as every part of gridwire reads them: one protocol, one unit.

- ``wall()``: seconds since the epoch (UTC) by this machine's clock, which an operator or
  NTP may step. What is written into an outstation, stamped on frames, compared with a
  head-end's time.
- ``monotonic()``: seconds on a clock that only moves forward and is never stepped. What
  ages, timeouts and schedules are measured on.

Both are float seconds. Where milliseconds are wanted (DNP3 time, frame stamps) they are
:func:`wall_ms` of the clock, the only conversion. The clock is injected (the master, its
sessions, the outstation server and the IEEE 2030.5 client take one), so tests can step the
wall clock and let time pass. (The simulated outstation's own DNP3 time, which a master sets,
is :class:`gridwire.outstation.clock.DeviceClock`: a device's clock, not the host's.)
"""

from __future__ import annotations

import time
from typing import Final, Protocol


class Clock(Protocol):
    def wall(self) -> float:
        """Seconds since the epoch (UTC) by this machine's clock."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that only moves forward and is never stepped."""
        ...


def wall_ms(clock: Clock) -> float:
    """The wall clock in milliseconds since the epoch (DNP3 time, frame stamps)."""
    return clock.wall() * 1000.0


class SystemClock:
    """The process's clocks: ``time.time`` and ``time.monotonic``, called directly (no Python
    frame between the caller and the system clock: the master reads it for every frame)."""

    __slots__ = ()

    wall = staticmethod(time.time)
    monotonic = staticmethod(time.monotonic)


SYSTEM_CLOCK: Final[Clock] = SystemClock()
"""The one system clock, for callers that are given none."""
