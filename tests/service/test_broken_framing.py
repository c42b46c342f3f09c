"""A request whose body breaks HTTP's framing after its headers (a chunk size that is not
hexadecimal) is answered once, by uvicorn's 400, and leaves no traceback: the application,
already started on the request, is told its client left. Found by the fuzz run of the 2030.5
management API (tests/fuzz); before the fix the application's own answer then failed with
h11's "can't handle event type Response when role=SERVER and state=MUST_CLOSE", logged as
"Exception in ASGI application" with its traceback, on the console too. The same break after
the application had begun its answer (an event stream) made uvicorn's 400 fail inside
``data_received``, logged by asyncio with a traceback; now the connection is closed."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.service.harness import running_service
from tests.service.sockets import raw_client, read_to_end, send


def _broken(host: str, method: str, path: str) -> bytes:
    return (
        f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        f"{r.name}: {r.getMessage()}"
        for r in caplog.records
        if r.exc_info is not None or "Exception in ASGI" in r.getMessage()
    ]


@pytest.mark.parametrize("later", [False, True], ids=["at-once", "later"])
@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/api"), ("POST", "/api/status"), ("POST", "/api/nothing"), ("GET", "/openapi.json")],
)
async def test_a_body_that_breaks_its_framing_is_answered_once(
    caplog: pytest.LogCaptureFixture, method: str, path: str, later: bool
) -> None:
    # At once: the break arrives with the headers, before the application has run (it then
    # answers a request uvicorn has already answered). Later: the application is reading
    # the body, or has answered already.
    caplog.set_level(logging.INFO)
    async with running_service() as svc, raw_client(svc.http_port) as sock:
        await send(sock, _broken(svc.host, method, path) + (b"" if later else b"zz\r\n"))
        if later:
            await asyncio.sleep(0.1)
            await send(sock, b"zz\r\n")
        answer = await read_to_end(sock, within=10)
        await asyncio.sleep(0.1)
    assert answer.count(b"HTTP/1.1 ") == 1, answer
    if not later:
        assert answer.startswith(b"HTTP/1.1 400 "), answer
    assert _tracebacks(caplog) == []


async def test_a_stream_whose_request_breaks_its_framing_is_closed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with running_service() as svc, raw_client(svc.http_port) as sock:
        await send(sock, _broken(svc.host, "GET", "/events"))
        await asyncio.sleep(0.2)  # the stream has begun
        await send(sock, b"zz\r\n")
        answer = await read_to_end(sock, within=10)
        await asyncio.sleep(0.1)
    assert answer.startswith(b"HTTP/1.1 200 "), answer
    assert _tracebacks(caplog) == []
