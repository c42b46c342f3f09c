"""One host clock for all of gridwire: the master, the outstation server and the IEEE 2030.5
client take the same :class:`gridwire.process.clock.Clock` (float seconds, wall and monotonic), and each
reads it in that unit: the same clock object set to 2001 makes the master stamp its frames and
write the outstation's time in 2001, the outstation start its device clock there, and the
2030.5 client schedule by it."""

from __future__ import annotations

import time

from gridwire.master import Master, OutstationSettings
from gridwire.outstation.database_file import default_database
from gridwire.outstation.server import OutstationServer
from gridwire.process.clock import SYSTEM_CLOCK, SystemClock, wall_ms
from gridwire.sep2.timebase import Timebase

SEPTEMBER_2001 = 1_000_000_000.0  # seconds since the epoch: far from any real clock today


class Set2001:
    """A wall clock that reads September 2001 and runs at the real rate, in seconds only."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def wall(self) -> float:
        return SEPTEMBER_2001 + (time.monotonic() - self.started)

    def monotonic(self) -> float:
        return time.monotonic()


def _near_2001_ms(value: float) -> bool:
    return abs(value - SEPTEMBER_2001 * 1000.0) < 60_000  # within a minute of it, in ms


async def test_one_clock_drives_master_outstation_and_sep2() -> None:
    assert OutstationServer(default_database()).clock is SYSTEM_CLOCK  # when given none
    clock = Set2001()
    database = default_database()
    server = OutstationServer(database, host="127.0.0.1", port=0, clock=clock)
    await server.start()
    master = Master(allow_control=True, clock=clock)
    try:
        # The outstation's device clock starts at the host clock's wall time.
        assert _near_2001_ms(database.clock.ms(clock.monotonic()))
        await master.add(OutstationSettings(name="o", host="127.0.0.1", port=server.port))
        await master.idle("o")
        database.clock.set(0.0, clock.monotonic())  # the device forgets the time
        exchange = await master.write_time("o")
        assert exchange.outcome == "complete"
        # The master wrote its own wall clock (2001, in DNP3 milliseconds)...
        assert _near_2001_ms(database.clock.ms(clock.monotonic()))
        # ... and stamped every frame by the same clock.
        frames = master.trace("o")
        assert frames and all(_near_2001_ms(f.time_ms) for f in frames)
    finally:
        await master.close()
        await server.close()
    # The 2030.5 client's timebase schedules by the same clock, in seconds.
    assert abs(Timebase(clock).now() - SEPTEMBER_2001) < 60


def test_the_system_clock_is_the_process_clock_in_seconds() -> None:
    clock = SystemClock()
    before_wall, before_mono = time.time(), time.monotonic()
    wall, mono, ms = clock.wall(), clock.monotonic(), wall_ms(clock)
    after_wall, after_mono = time.time(), time.monotonic()
    assert before_wall <= wall <= after_wall and before_mono <= mono <= after_mono
    assert before_wall * 1000.0 <= ms <= after_wall * 1000.0
    assert wall_ms(Set2001()) - SEPTEMBER_2001 * 1000.0 < 60_000
