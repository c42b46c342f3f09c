"""The session's exchanges keep time on the master's one clock (DESIGN D134): the deadline the
exchange rules set, the moment the request left and the duration on the record are all read
from :meth:`gridwire.process.clock.Clock.monotonic`, whatever the event loop's own clock says. (The
loop's timer only wakes the session; the clock decides whether the time is up.)"""

from __future__ import annotations

import asyncio
import time

from gridwire.master import Master, OutstationSettings

RATE = 0.5


class Slow:
    """A host clock whose seconds pass at ``RATE`` times the real ones' pace."""

    def monotonic(self) -> float:
        return RATE * time.monotonic()

    def wall(self) -> float:
        return time.time()


async def test_a_response_timeout_is_counted_on_the_masters_clock() -> None:
    received: list[bytes] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(4096):  # takes the request, answers nothing
            received.append(data)
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    master = Master(clock=Slow())
    try:
        settings = OutstationSettings(
            name="mute", host="127.0.0.1", port=port, manual=True, response_timeout=0.5
        )
        await master.add(settings)
        started = time.monotonic()
        exchange = await master.scan("mute", "class0")
        real = time.monotonic() - started
    finally:
        await master.close()
        server.close()
        await server.wait_closed()
    assert received  # the request left
    assert exchange.outcome == "timeout"
    # Half a second on the master's clock before the timeout, as the record says: a second
    # on the event loop's (when the loop decided, the record said 250 ms for a 500 ms timeout).
    assert exchange.elapsed_ms >= 500.0
    assert real >= 0.5 / RATE
