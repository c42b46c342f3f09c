"""A request body that never ends is not held forever by any gridwire HTTP service (issue 9,
item 5; found by the fuzz run of the 2030.5 management API, which held a dripped body for
as long as it dripped): :mod:`gridwire.net.http_serving` answers 408 a tick after the body
timeout when the application has not answered, and closes the connection when it has
(an application that never reads the body answers at once, and uvicorn then waited for the
rest of the body before the next request, however slowly it came)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from gridwire.net.connection_limits import Limits
from gridwire.net.http_serving import GuardedServer
from tests.fuzz.wire import Wire

LIMITS = Limits(header_timeout=5.0, body_timeout=1.0)
SLACK = 2.5  # a tick of the watch (at most 1 s) and a scheduler's delay on a busy machine
# Which guard answers first, the application or the watch a tick later, is a matter of time.
pytestmark = pytest.mark.serial


async def _status(request: Request) -> Response:  # answers without reading the body
    return JSONResponse({"ok": True})


async def _echo(request: Request) -> Response:  # reads the body, with no deadline of its own
    return Response(await request.body(), media_type="application/json")


@contextlib.asynccontextmanager
async def _serving() -> AsyncIterator[int]:
    app = Starlette(routes=[Route("/status", _status), Route("/echo", _echo, methods=["POST"])])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()  # connections wait in the queue until the server takes them
    server = GuardedServer(app, LIMITS, handle_signals=False, lifespan="off", access_log=False)
    serving = asyncio.ensure_future(server.serve(sockets=[listener]))
    try:
        yield listener.getsockname()[1]
    finally:
        server.should_exit = True
        await serving
        listener.close()


async def _drip(wire: Wire) -> None:
    for _ in range(600):  # a minute at most
        if not await wire.send(b" "):
            return
        await asyncio.sleep(0.1)


def _head(method: str, path: str, port: int) -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
    ).encode()


async def test_a_dripped_body_the_application_waits_for_is_answered_408() -> None:
    async with _serving() as port, Wire.open(port) as wire:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await wire.send(_head("POST", "/echo", port))
        dripping = asyncio.ensure_future(_drip(wire))
        try:
            answer = await wire.answer("POST", LIMITS.body_timeout + SLACK)
        finally:
            dripping.cancel()
        took = loop.time() - started
        assert answer is not None and answer.status == 408, answer
        assert orjson.loads(answer.body) == {
            "detail": "the request body did not arrive whole within 1.0 s"
        }
        assert LIMITS.body_timeout <= took <= LIMITS.body_timeout + SLACK
        assert await wire.closed_within(SLACK)


async def test_a_dripped_body_after_its_answer_ends_the_connection() -> None:
    async with _serving() as port, Wire.open(port) as wire:
        loop = asyncio.get_running_loop()
        started = loop.time()
        await wire.send(_head("GET", "/status", port))
        dripping = asyncio.ensure_future(_drip(wire))
        try:
            answer = await wire.answer("GET", SLACK)
            assert answer is not None and answer.status == 200, answer
            assert await wire.closed_within(LIMITS.body_timeout + SLACK)
        finally:
            dripping.cancel()
        assert loop.time() - started <= LIMITS.body_timeout + SLACK
