"""The two clocks the client reads: the device's wall clock (epoch seconds, which an operator
or NTP may step) and a monotonic clock (which nothing steps), for measuring ages. Injected, so
tests can step the wall clock and let time pass."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def wall(self) -> float:
        """Seconds since the epoch by the device's own clock."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that only moves forward and is never stepped."""
        ...


class SystemClock:
    """The process's clocks: ``time.time`` and ``time.monotonic``."""

    def wall(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()


SYSTEM_CLOCK: Clock = SystemClock()
