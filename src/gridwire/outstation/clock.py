"""The outstation's own clock, kept sans-IO.

The session is driven by ``now``: seconds on a monotonic clock that the caller passes in.
The device's DNP3 time (milliseconds since the epoch, UTC) is ``now`` plus an offset that a
master sets by writing the time. Until a master writes it, and again ``resync_after``
seconds after the last write, the clock asks for time with NEED_TIME (IIN1.4).
"""

from __future__ import annotations


class DeviceClock:
    """DNP3 time derived from the monotonic ``now``.

    ``wall_ms`` and ``now`` given together say what the device believes the time is at
    start (tests pass any literal). A clock made without ``wall_ms`` is not anchored: it
    counts from the epoch until :meth:`anchor` (which the server calls with the host's wall
    clock when it starts) says otherwise.
    """

    def __init__(
        self, wall_ms: float | None = None, now: float = 0.0, resync_after: float | None = 1800.0
    ) -> None:
        self.anchored = wall_ms is not None
        self._offset_ms = (wall_ms or 0.0) - now * 1000.0
        self.resync_after = resync_after
        self.synchronized = False
        self.last_set: float | None = None
        # The LAN procedure: the time the last RECORD_CURRENT_TIME arrived, in device ms.
        self.recorded_ms: int | None = None

    def anchor(self, wall_ms: float, now: float) -> None:
        """Give an unanchored clock its starting time (a clock already anchored is kept)."""
        if not self.anchored:
            self._offset_ms = wall_ms - now * 1000.0
            self.anchored = True

    def ms(self, now: float) -> int:
        """The device's time at ``now``, in whole milliseconds since the epoch."""
        return int(self._offset_ms + now * 1000.0)

    def set(self, time_ms: float, now: float) -> None:
        """A master says the time at ``now`` is ``time_ms``."""
        self._offset_ms = time_ms - now * 1000.0
        self.synchronized = True
        self.last_set = now

    def need_time(self, now: float) -> bool:
        """Whether the device asks for the time (NEED_TIME)."""
        if not self.synchronized or self.last_set is None:
            return True
        return self.resync_after is not None and now - self.last_set >= self.resync_after

    def unsynchronize(self) -> None:
        """Forget that a master set the time (a restart)."""
        self.synchronized = False
        self.last_set = None
        self.recorded_ms = None
