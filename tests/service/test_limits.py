"""Connections are held under limits (issue 9, items 5, 6 and 9), over real sockets: half-sent
headers, a body that stalls, a line connection that says nothing, more connections than the
cap, and clients that never read their answers. Every limit is shortened here (the
defaults are in :class:`gridwire.net.connection_limits.Limits`)."""

from __future__ import annotations

import asyncio
import logging

import httpx
import orjson
import pytest

from gridwire.net.connection_limits import Limits
from gridwire.operations.context import Context
from gridwire.operations.declaration import OperationTable, Params, declare
from gridwire.operations.table import default_table
from tests.service.harness import body_of, error, running_service, status_of
from tests.service.sockets import cut_within, post, raw_client, read_to_end, send

SHORT = Limits(
    header_timeout=1.0, body_timeout=1.0, keep_alive=1.0, send_timeout=1.0, line_idle=1.0
)
SLACK = 5.0  # seconds a limit may be overrun on a loaded machine before a test fails
BIG = 16 << 20  # an answer far larger than the socket buffers


def _big(context: Context, params: Params) -> dict[str, str]:
    return {"blob": "x" * BIG}


def big_table() -> OperationTable:
    return default_table().extended(
        [declare("test.big", params=Params, result=dict, handler=_big, summary="16 MiB")]
    )


async def test_headers_must_arrive_whole_in_time_however_they_drip() -> None:
    async with running_service(limits=SHORT) as running:
        loop = asyncio.get_running_loop()

        async def silent() -> float:
            async with raw_client(running.http_port) as sock:
                started = loop.time()
                assert await read_to_end(sock, SHORT.header_timeout + SLACK) == b""
                return loop.time() - started

        async def half() -> float:
            async with raw_client(running.http_port) as sock:
                started = loop.time()
                await send(sock, f"GET /openapi.json HTTP/1.1\r\nHost: {running.host}".encode())
                assert await read_to_end(sock, SHORT.header_timeout + SLACK) == b""
                return loop.time() - started

        async def drip() -> float:
            async with raw_client(running.http_port) as sock:
                started = loop.time()
                reading = asyncio.ensure_future(read_to_end(sock, SHORT.header_timeout + SLACK))
                for octet in b"GET /openapi.json HTTP/1.1\r\nX-Slow: " + b"a" * 1000:
                    if reading.done():
                        break
                    await send(sock, bytes([octet]))
                    await asyncio.sleep(0.1)
                assert await reading == b""
                return loop.time() - started

        took = await asyncio.gather(silent(), half(), drip())
        assert all(SHORT.header_timeout * 0.9 <= t <= SHORT.header_timeout + SLACK for t in took)
        async with httpx.AsyncClient(base_url=running.base_url, timeout=30) as client:
            assert (await client.post("/api/status", json={})).status_code == 200


@pytest.mark.serial  # the application's 408 must come before the watch's, a tick later
async def test_a_stalled_body_is_answered_408_and_the_connection_closed() -> None:
    async with running_service(limits=SHORT) as running:
        async with raw_client(running.http_port) as sock:
            await send(sock, post(running.host, "/api/status", b'{"after": ', 100))
            response = await read_to_end(sock, SHORT.body_timeout + SLACK)
        assert status_of(response) == 408
        assert b"connection: close" in response.lower()
        message = error(body_of(response), "request")
        assert message == "the message did not arrive whole within 1.0 s"


async def test_connections_over_the_cap_are_refused_at_once() -> None:
    cap = 4
    async with running_service(limits=Limits(max_connections=cap)) as running:
        for port in (running.http_port, running.line_port):
            async with (
                raw_client(port) as a,
                raw_client(port) as b,
                raw_client(port) as c,
                raw_client(port) as d,
            ):
                await asyncio.sleep(0.2)  # the service has taken all four
                async with raw_client(port) as extra:
                    refusal = await read_to_end(extra, SLACK)
                if port == running.http_port:
                    assert status_of(refusal) == 503
                    envelope = body_of(refusal)
                else:
                    envelope = orjson.loads(refusal)
                assert error(envelope, "request") == (
                    f"the service holds {cap} connections, the most it takes; try again later"
                )
                del a, b, c, d
            await asyncio.sleep(0.2)  # the four are gone: a new client is served
            async with httpx.AsyncClient(base_url=running.base_url, timeout=30) as client:
                assert (await client.post("/api/status", json={})).status_code == 200


async def test_an_answer_the_client_never_reads_is_cut() -> None:
    async with running_service(limits=SHORT, table=big_table()) as running:
        body = b'{"op": "test.big"}'
        async with raw_client(running.http_port, rcvbuf=4096) as sock:
            await send(sock, post(running.host, "/api", body))
            took = await cut_within(sock, SHORT.send_timeout + 30)
        assert took >= SHORT.send_timeout * 0.5
        async with raw_client(running.line_port, rcvbuf=4096) as sock:
            await send(sock, body + b"\n")
            await cut_within(sock, SHORT.send_timeout + 30)


async def test_a_silent_line_connection_is_told_and_closed() -> None:
    async with running_service(limits=SHORT) as running:
        for said in (b"", b'{"op": "sta'):
            async with raw_client(running.line_port) as sock:
                await send(sock, said)
                lines = (await read_to_end(sock, SHORT.line_idle + SLACK)).splitlines()
            assert len(lines) == 1
            assert error(orjson.loads(lines[0]), "request") == (
                "no whole message arrived for 1.0 s; closing"
            )
        # A subscribed connection may stay silent: its stream's idleness watches it.
        reader, writer = await asyncio.open_connection("127.0.0.1", running.line_port)
        try:
            writer.write(b'{"op": "subscribe", "id": 1}\n')
            assert orjson.loads(await reader.readline())["ok"] is True
            await asyncio.sleep(SHORT.line_idle * 3)
            writer.write(b'{"op": "status", "id": 2}\n')
            assert orjson.loads(await asyncio.wait_for(reader.readline(), 30))["id"] == 2
        finally:
            writer.close()


async def test_a_client_that_leaves_mid_body_is_one_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with running_service() as running:
        async with raw_client(running.http_port) as sock:
            await send(sock, post(running.host, "/api/status", b'{"a": 1', 1000))
            await asyncio.sleep(0.3)
        await asyncio.sleep(0.5)
        async with httpx.AsyncClient(base_url=running.base_url, timeout=30) as client:
            assert (await client.post("/api/status", json={})).status_code == 200
    assert [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info] == []
    left = [r.getMessage() for r in caplog.records if "left before" in r.getMessage()]
    assert left == ["/api/status: the client left before its message was whole"]
