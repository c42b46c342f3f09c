"""The line service over real sockets: one envelope line per message in order, the 4 MiB line
limit, subscribe, stop, many clients, loopback only."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from gridwire.errors import ConfigError
from gridwire.transports.line import LineServer
from gridwire.transports.service import MESSAGE_LIMIT
from tests.service.harness import LineTransport, error, ok, outstation, running_service
from tests.service.sockets import cut_within, raw_client, send
from tests.service.test_events import flood_until_dropped, subscribers_become
from tests.support.peers import yadnp3_outstation


async def test_answers_come_back_in_order() -> None:
    async with running_service() as running, LineTransport(running) as line:
        ops = ["status", "nope", "values", "status"] * 10
        batch = b"".join(
            orjson.dumps({"id": n, "op": op, "outstation": "q" if op == "values" else None}) + b"\n"
            for n, op in enumerate(ops)
        )
        await line.send_line(batch)  # every message at once, in one write
        answers = [await line.answer(None) for _ in ops]
        assert [a["id"] for a in answers] == list(range(len(ops)))
        assert [a["ok"] for a in answers] == [op == "status" for op in ops]


async def test_a_bad_line_is_answered_and_the_connection_stays() -> None:
    async with running_service() as running, LineTransport(running) as line:
        await line.send_line(b"{not json\n\n   \n[1, 2]\n")
        first = await line.answer(None)
        assert error(first, "request").startswith("the line is not JSON")
        second = await line.answer(None)  # blank lines are skipped
        assert "a message is a JSON object" in error(second, "request")
        assert ok(await line.call("status")) == {
            "allow_control": False,
            "outstations": [],
            "total": 0,
            "offset": 0,
            "next": None,
            "summary": {"connected": 0, "connecting": 0, "disconnected": 0},
            "channels": [],
        }


async def test_a_line_over_four_mebibytes_is_refused_and_closed() -> None:
    async with running_service() as running:
        async with LineTransport(running) as line:
            # Exactly 4 MiB before the newline is read: a message padded with spaces.
            message = b'{"op": "status", "id": "big"}'
            await line.send_line(message + b" " * (MESSAGE_LIMIT - len(message)) + b"\n")
            assert ok(await line.answer("big"))["outstations"] == []
        async with LineTransport(running) as line:
            # One octet more, and no newline at all: answered without waiting for the end.
            await line.send_line(b"{" + b" " * MESSAGE_LIMIT)
            refused = await line.read_line()
            assert refused is not None
            assert error(refused, "request") == (
                f"a line is larger than {MESSAGE_LIMIT} octets; closing"
            )
            assert await line.read_line() is None  # then the connection is closed


async def test_a_subscriber_that_accepts_no_write_is_cut() -> None:
    async with (
        running_service(idle=1.0) as running,
        raw_client(running.line_port, rcvbuf=4096) as sock,
    ):
        await send(sock, b'{"op": "subscribe", "id": 1}\n')
        await subscribers_become(running.master.bus, 1)
        await flood_until_dropped(running.master.bus)
        assert await cut_within(sock, 10) < 10


@pytest.mark.interop
async def test_subscribe_adds_events_between_answers() -> None:
    with yadnp3_outstation(points=2) as peer:
        async with (
            running_service() as running,
            LineTransport(running) as watcher,
            LineTransport(running) as other,
        ):
            assert ok(await watcher.call("subscribe")) == {"subscribed": True}
            ok(await other.call("add", **outstation(peer.port).model_dump(mode="json")))
            ok(await other.call("idle", "y"))
            scan = ok(await other.call("scan", "y", kind="class0"))
            # The watcher's next answer comes after the events published so far.
            ok(await watcher.call("status"))
            names = [e["event"] for e in watcher.events]
            assert {"outstations", "connection", "frame", "exchange"} <= set(names)
            connected = next(e for e in watcher.events if e["event"] == "connection")
            assert connected["data"] == {"outstation": "y", "connected": True}
            exchanges = [e["data"] for e in watcher.events if e["event"] == "exchange"]
            mine = [x for x in exchanges if x["exchange"]["sequence"] == scan["sequence"]]
            assert mine[-1]["exchange"]["request"] == scan["request"]
            assert mine[-1]["outstation"] == "y"
            frames = [e["data"]["frame"] for e in watcher.events if e["event"] == "frame"]
            assert {f["direction"] for f in frames} == {"sent", "received"}
            # The other connection, not subscribed, got answers only.
            assert other.events == []


async def test_stop_ends_the_service() -> None:
    async with (
        running_service() as running,
        LineTransport(running) as bystander,
        LineTransport(running) as line,
    ):
        ok(await bystander.call("status"))
        assert ok(await line.call("stop")) == {"stopping": True}
        assert await line.read_line() is None  # answered, then closed
        await asyncio.wait_for(running.service.stopping.wait(), 5)
        # The listener closes with it (the harness closes servers on stopping, as the
        # runner does); the bystander's connection ends too.
        assert await bystander.read_line(timeout=30) is None


async def test_many_clients_at_once() -> None:
    async with running_service() as running:

        async def client(n: int) -> list[object]:
            async with LineTransport(running) as line:
                return [(await line.message({"op": "status", "id": n}))["id"] for _ in range(10)]

        results = await asyncio.gather(*(client(n) for n in range(20)))
    assert results == [[n] * 10 for n in range(20)]


async def test_listens_on_this_machine_only() -> None:
    async with running_service() as running:
        for host in ("0.0.0.0", "192.0.2.1", "example.org", "::"):
            with pytest.raises(ConfigError, match="this machine only"):
                LineServer(running.service, host, 0)
        for host in ("127.0.0.1", "::1", "localhost", "127.8.9.10"):
            LineServer(running.service, host, 0)
