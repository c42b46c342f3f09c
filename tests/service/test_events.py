"""The event stream (GET /events) over real sockets: what it carries, ``lost`` with the right
count for a subscriber that fell 10,000 updates behind (and a backlog that never grows past
that), the cut of a stream that accepts no write, and keep-alive comments on a quiet one.

A slow subscriber is a raw socket with a 4 KiB receive buffer that sends its request and
then reads nothing, so the server's writes back up; it speaks HTTP/1.0, so the stream comes
back unchunked and is read as it is afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from gridwire.master.bus import BACKLOG_LIMIT, EventBus, Subscriber
from gridwire.transports.events import accepted
from tests.service.harness import Running, outstation, running_service
from tests.service.sockets import cut_within
from tests.support.peers import yadnp3_outstation

pytestmark = pytest.mark.interop

SENTINEL = {"outstation": "sentinel", "connected": False}


def parse_sse(stream: bytes) -> tuple[list[tuple[str, Any]], int]:
    """Events (name, data) and the number of comment blocks in a server-sent event stream."""
    events: list[tuple[str, Any]] = []
    comments = 0
    for block in stream.split(b"\n\n"):
        if not block:
            continue
        name, data = None, None
        for line in block.split(b"\n"):
            if line.startswith(b":"):
                comments += 1
            elif line.startswith(b"event: "):
                name = line[7:].decode()
            elif line.startswith(b"data: "):
                data = orjson.loads(line[6:])
        if name is not None:
            events.append((name, data))
    return events, comments


@contextlib.asynccontextmanager
async def slow_subscriber(running: Running) -> AsyncIterator[socket.socket]:
    """An event stream that is asked for and then not read (until the test reads it): a
    plain socket, so that nothing reads it behind the test's back."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    try:
        await loop.sock_connect(sock, ("127.0.0.1", running.http_port))
        request = f"GET /events HTTP/1.0\r\nHost: {running.host}\r\n\r\n"
        await loop.sock_sendall(sock, request.encode())
        yield sock
    finally:
        sock.close()


async def receive(sock: socket.socket) -> bytes:
    return await asyncio.get_running_loop().sock_recv(sock, 1 << 20)


async def subscribers_become(bus: EventBus, count: int, within: float = 30.0) -> None:
    # The bus offers no notice of subscriptions: look every 20 ms.
    async with asyncio.timeout(within):
        while bus.subscribers != count:  # noqa: ASYNC110
            await asyncio.sleep(0.02)


def others(bus: EventBus, mine: Subscriber) -> list[Subscriber]:
    # White-box look at the bus's subscribers (the stream's own is made by the server).
    return [s for s in bus._subscribers if s is not mine]


def holds_whole(received: bytes | bytearray, marker: bytes) -> bool:
    """Whether ``marker`` has arrived and so has the end of the event block it is in (its
    text can arrive before the rest of its block)."""
    at = received.find(marker)
    return at >= 0 and b"\n\n" in received[at:]


async def read_until_sentinel(sock: socket.socket) -> bytes:
    """What the stream carried up to and including the whole sentinel event."""
    received = bytearray()
    async with asyncio.timeout(120):
        while not holds_whole(received, b'"outstation":"sentinel"'):
            chunk = await receive(sock)
            assert chunk, "the stream ended before the sentinel"
            received += chunk
    return bytes(received).partition(b"\r\n\r\n")[2]


async def test_a_slow_subscriber_gets_lost_with_the_count_dropped() -> None:
    with yadnp3_outstation(points=2) as peer:
        async with running_service(outstations=[outstation(peer.port)]) as running:
            master = running.master
            await master.idle("y")
            reference = master.bus.subscribe()
            published = 0

            async def count() -> None:
                nonlocal published
                async for name, _ in reference:
                    assert name != "lost"  # the reference keeps up: it counts everything
                    published += 1

            counter = asyncio.ensure_future(count())
            async with slow_subscriber(running) as sock:
                await subscribers_become(master.bus, 2)
                (stream,) = others(master.bus, reference)
                biggest = 0
                # Publish three backlogs' worth: more than the socket buffers can hold.
                rounds = 0
                while published < 3 * BACKLOG_LIMIT:
                    for _ in range(200):
                        await master.read("y", {"ai": [0]})
                        biggest = max(biggest, stream.waiting)
                    rounds += 1
                    assert rounds < 200, "no backlog built up"
                master.bus.publish("connection", dict(SENTINEL))
                received = await read_until_sentinel(sock)
            await asyncio.sleep(0)
            reference.close()
            await counter
    events, _ = parse_sse(received)
    lost = [data for name, data in events if name == "lost"]
    delivered = [name for name, _ in events if name != "lost"]
    assert lost, "the slow subscriber never fell 10,000 behind"
    # Each overflow drops the whole backlog: 10,000 updates at a time.
    assert all(set(data) == {"dropped"} and data["dropped"] % BACKLOG_LIMIT == 0 for data in lost)
    assert sum(data["dropped"] for data in lost) + len(delivered) == published
    assert events[-1] == ("connection", SENTINEL)  # still subscribed after lost
    assert biggest <= BACKLOG_LIMIT + 1  # the backlog (a pending lost counts one) is bounded
    assert set(delivered) <= {"frame", "exchange", "connection"}


async def flood_until_dropped(bus: EventBus) -> None:
    """Publish 64 KiB updates until the bus has no subscriber left (the streams of clients
    that read nothing are dropped at their idleness limit)."""
    update = {"outstation": "x" * 65536, "connected": False}
    async with asyncio.timeout(120):
        while bus.subscribers:
            for _ in range(20):
                bus.publish("connection", update)
            await asyncio.sleep(0.01)


async def test_a_stream_that_accepts_no_write_is_cut() -> None:
    """The stream's connection itself ends at the idleness limit (a reset, the octets not
    taken dropped), seen by a client that reads nothing."""
    idle = 1.0
    async with (
        running_service(idle=idle, keepalive=0.2) as running,
        slow_subscriber(running) as sock,
    ):
        await subscribers_become(running.master.bus, 1)
        await flood_until_dropped(running.master.bus)
        assert await cut_within(sock, 10) < 10


async def test_a_quiet_stream_gets_keepalive_comments_and_stays_open() -> None:
    idle, keepalive = 1.0, 0.2
    with yadnp3_outstation(points=2) as peer:
        async with running_service(
            outstations=[outstation(peer.port)], idle=idle, keepalive=keepalive
        ) as running:
            await running.master.idle("y")
            url = f"{running.base_url}/events"
            async with httpx.AsyncClient(timeout=60) as client, client.stream("GET", url) as s:
                assert s.status_code == 200
                received = bytearray()
                chunks = s.aiter_bytes()
                started = asyncio.get_running_loop().time()
                while asyncio.get_running_loop().time() - started < 4 * idle:
                    received += await anext(chunks)
                assert running.master.bus.subscribers == 1  # still open past the idle limit
                await running.master.scan("y", "class0")
                while not holds_whole(received, b"event: exchange"):
                    received += await anext(chunks)
    events, comments = parse_sse(bytes(received))
    assert comments >= 3
    assert ("exchange", None) not in events
    exchange = next(data for name, data in events if name == "exchange")
    assert exchange["outstation"] == "y" and exchange["exchange"]["function"] == "READ"


async def test_a_write_cancelled_before_it_began_is_closed_not_left_unawaited() -> None:
    began: list[bytes] = []

    async def write(data: bytes) -> None:
        began.append(data)

    pending = write(b"x")
    task = asyncio.ensure_future(accepted(pending, 1.0))
    await asyncio.sleep(0)  # the task takes its turn: it waits in accepted's first yield
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert began == [] and pending.cr_frame is None  # closed: no "never awaited" warning
