"""The master's clock: the machine's wall clock and its monotonic clock."""

from __future__ import annotations

import time


class SystemClock:
    """Implements :class:`gridwire.master.session_protocol.Clock` from the system clocks."""

    __slots__ = ()

    def wall_ms(self) -> float:
        return time.time() * 1000.0

    def monotonic(self) -> float:
        return time.monotonic()
