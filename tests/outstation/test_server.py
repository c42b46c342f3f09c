"""The asyncio server: one master association at a time, timers, the embedding API."""

from __future__ import annotations

import asyncio

import pytest

from gridwire.dnp3.link import (
    LinkFrame,
    LinkReader,
    SecondaryFunction,
    request_link_status,
    user_data,
)
from gridwire.errors import ConfigError
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database_file import default_database
from gridwire.outstation.server import OutstationServer, run_outstation
from gridwire.simulator import SimulatedDer

STATUS = request_link_status(1024, 1, from_master=True)


async def _link_status(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> list[int]:
    """Ask for the link status; the functions of the frames that come back."""
    writer.write(STATUS)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(4096), 10)
    return [f.function for f in LinkReader().feed(data) if isinstance(f, LinkFrame)]


async def test_a_second_master_replaces_the_first() -> None:
    async with run_outstation(default_database(), "127.0.0.1", 0) as server:
        first = await asyncio.open_connection("127.0.0.1", server.port)
        assert await _link_status(*first) == [SecondaryFunction.LINK_STATUS]
        second = await asyncio.open_connection("127.0.0.1", server.port)
        assert await _link_status(*second) == [SecondaryFunction.LINK_STATUS]
        # The first connection was closed by the outstation.
        assert await asyncio.wait_for(first[0].read(), 10) == b""
        assert server.connections == 2 and server.connected
        for _, writer in (first, second):
            writer.close()


async def test_refuse_keeps_the_first_master() -> None:
    async with run_outstation(default_database(), "127.0.0.1", 0, accept="refuse") as server:
        first = await asyncio.open_connection("127.0.0.1", server.port)
        assert await _link_status(*first) == [SecondaryFunction.LINK_STATUS]
        second = await asyncio.open_connection("127.0.0.1", server.port)
        assert await asyncio.wait_for(second[0].read(), 10) == b""
        assert await _link_status(*first) == [SecondaryFunction.LINK_STATUS]
        assert server.refused == 1
        first[1].close()
        # Once the first has gone, a new master is served.
        await asyncio.sleep(0.2)
        third = await asyncio.open_connection("127.0.0.1", server.port)
        assert await _link_status(*third) == [SecondaryFunction.LINK_STATUS]
        third[1].close()


async def test_null_unsolicited_on_connect_and_retry_by_timer() -> None:
    config = OutstationConfig(unsolicited=True, unsolicited_retry=0.2)
    async with run_outstation(default_database(), "127.0.0.1", 0, config=config) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        link = LinkReader()
        received: list[bytes] = []
        while len(received) < 2:  # the null unsolicited response, then its retry
            chunk = await asyncio.wait_for(reader.read(4096), 10)
            received += [f.data for f in link.feed(chunk) if isinstance(f, LinkFrame)]
        # Transport header, then F0 82: FIR|FIN|CON|UNS sequence 0, UNSOLICITED_RESPONSE.
        assert received[0][1:3] == bytes.fromhex("F0 82")
        assert received[1][1:] == received[0][1:]
        # Confirm it (transport C1: FIR|FIN, segment 1... any sequence starts a fragment).
        writer.write(user_data(1024, 1, bytes.fromhex("C0 D0 00"), from_master=True))
        await writer.drain()
        await asyncio.sleep(0.5)
        assert server.session.deadline is None
        writer.close()


async def test_the_simulated_der_ticks_while_served() -> None:
    der = SimulatedDer()
    async with run_outstation(der, "127.0.0.1", 0, tick_interval=0.05):
        await asyncio.sleep(0.5)
    assert der.database.get("ai", 537).value > 0  # power ramping up


def test_bad_server_settings() -> None:
    with pytest.raises(ConfigError, match="accept"):
        OutstationServer(default_database(), accept="maybe")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="tick_interval"):
        OutstationServer(default_database(), tick_interval=0)


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
async def test_close_ends_even_when_the_timers_were_just_woken(turns: int) -> None:
    # close() cancels the timer loop; a wake-up (a master's frame, a disconnection) can come
    # in the same turns of the event loop. On Python 3.11 asyncio.wait_for swallows a
    # cancellation that arrives as its event is set, and the loop then ran forever.
    server = OutstationServer(default_database(), host="127.0.0.1", port=0, tick_interval=60.0)
    await server.start()
    await asyncio.sleep(0.05)  # the timer loop is waiting for its next tick
    for _ in range(50):
        server._wake.set()
        for _ in range(turns):
            await asyncio.sleep(0)
        timer = server._timer
        assert timer is not None
        timer.cancel()
        async with asyncio.timeout(5):
            await asyncio.wait([timer])
        assert timer.cancelled()
        server._timer = asyncio.create_task(server._run_timers())
        await asyncio.sleep(0.01)
    async with asyncio.timeout(5):
        await server.close()
