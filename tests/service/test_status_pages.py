"""``status`` of many outstations (DESIGN D149): a page of them (500 unless ``limit`` says),
``total``, ``next`` and a ``summary`` of every outstation by connection state, with the
spec's ``allow_control`` and ``outstations``; and a status of 10,000 never holds the event
loop longer than the bound tests/service/test_stall.py holds every message to.

The outstations are added toward a port nothing listens on (each connection refused at once,
``reconnect`` null), so they stay added and disconnected and cost no peer."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Iterator

import orjson
import pytest

from gridwire.errors import ConnectionFailed
from gridwire.master import Master, OutstationSettings
from gridwire.master.limits import STATUS_PAGE
from tests.service.harness import LineTransport, error, ok, running_service
from tests.service.test_stall import STATUS_WITHIN
from tests.support.net import free_port
from tests.support.waiting import until


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


def closed_port() -> int:
    """A port nothing listens on, below the ephemeral range (free_port's slice): a closed
    ephemeral port may be the very source port the kernel picks for a connection to it, which
    then connects to itself (TCP's simultaneous open; 94 of 1,100 did on a loaded run)."""
    return free_port()


async def add_many(master: Master, count: int) -> None:
    """Add ``count`` outstations, freezing what each batch made as the service freezes its
    configured ones once added (settle_heap): a collection walks none of it afterwards."""
    port = closed_port()

    async def add(n: int) -> None:
        settings = OutstationSettings(name=f"o{n}", host="127.0.0.1", port=port, reconnect=None)
        with contextlib.suppress(ConnectionFailed):  # added, not connected
            await master.add(settings)

    for start in range(0, count, 500):
        await asyncio.gather(*(add(n) for n in range(start, min(count, start + 500))))
        gc.freeze()


async def test_status_lists_a_page_and_counts_them_all() -> None:
    count = STATUS_PAGE * 2 + 100
    async with running_service() as running, LineTransport(running) as api:
        await add_many(running.service.master, count)
        first = ok(await api.call("status"))
        assert first["allow_control"] is False
        assert len(first["outstations"]) == STATUS_PAGE and first["total"] == count
        assert (first["offset"], first["next"]) == (0, STATUS_PAGE)
        assert first["summary"] == {"connected": 0, "connecting": 0, "disconnected": count}
        entry = first["outstations"][0]
        assert {"tasks", "tasks_due", "reconnect"} <= set(entry) and entry["reconnect"] is None
        names = [o["name"] for o in first["outstations"]]
        offset = first["next"]
        while offset is not None:
            page = ok(await api.call("status", offset=offset))
            names += [o["name"] for o in page["outstations"]]
            offset = page["next"]
        assert names == [f"o{n}" for n in range(count)]
        few = ok(await api.call("status", offset=count - 3, limit=10))
        assert [o["name"] for o in few["outstations"]] == [f"o{n}" for n in range(count - 3, count)]
        assert few["next"] is None
        error(await api.call("status", limit=0), "request")


async def line_call(port: int, message: dict[str, object]) -> bytes:
    """One message over a fresh line connection; the answer line unparsed (parsing 4.8 MB
    here would hold the loop the service shares with this test)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=16 << 20)
    try:
        writer.write(orjson.dumps(message) + b"\n")
        return await reader.readline()
    finally:
        writer.close()
        await writer.wait_closed()


@pytest.mark.serial
async def test_a_status_of_10000_never_holds_the_loop() -> None:
    async with running_service() as running:
        await add_many(running.service.master, 10_000)
        gaps: list[float] = []
        stop = asyncio.Event()

        async def tick() -> None:
            last = time.perf_counter()
            while not stop.is_set():
                await asyncio.sleep(0.001)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        ticker = asyncio.create_task(tick())
        await asyncio.sleep(0.01)
        started = time.perf_counter()
        page = await line_call(running.line_port, {"op": "status"})
        paged = time.perf_counter() - started
        everything = await line_call(
            running.line_port, {"op": "status", "params": {"limit": 10_000}}
        )
        stop.set()
        await ticker
    assert orjson.loads(page)["result"]["total"] == 10_000
    assert len(orjson.loads(everything)["result"]["outstations"]) == 10_000
    assert paged < STATUS_WITHIN, f"a page of 10,000 took {paged * 1000:.0f} ms"
    assert max(gaps) < STATUS_WITHIN, f"the loop was held {max(gaps) * 1000:.0f} ms"


async def test_the_summary_follows_every_change_of_connection() -> None:
    """The summary is a tally kept as connections change (D208), not a walk: at each step it
    equals the states the full list gives, as outstations connect, are lost by the
    outstation's side, are disconnected and are removed."""
    accepted: list[asyncio.StreamWriter] = []

    async def accept(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server, running_service() as running, LineTransport(running) as api:

        async def summary(expected: dict[str, int]) -> None:
            whole = ok(await api.call("status", limit=100))
            walked = dict.fromkeys(expected, 0)
            for entry in whole["outstations"]:
                walked[entry["state"]] += 1
            assert whole["summary"] == walked == expected
            assert ok(await api.call("status", limit=1))["summary"] == expected

        for n in range(3):
            await running.master.add(
                OutstationSettings(name=f"up{n}", host="127.0.0.1", port=port, reconnect=None)
            )
        await add_many(running.master, 2)
        await summary({"connected": 3, "connecting": 0, "disconnected": 2})
        accepted[0].close()  # the outstation's side ends one connection
        await until(lambda: not running.master.session("up0").connected)
        await summary({"connected": 2, "connecting": 0, "disconnected": 3})
        ok(await api.call("disconnect", "up1"))
        await summary({"connected": 1, "connecting": 0, "disconnected": 4})
        ok(await api.call("remove", "up2"))
        ok(await api.call("remove", "o0"))
        await summary({"connected": 0, "connecting": 0, "disconnected": 3})
        ok(await api.call("connect", "up1"))
        await summary({"connected": 1, "connecting": 0, "disconnected": 2})
