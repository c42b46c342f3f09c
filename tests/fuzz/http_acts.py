"""Hostile acts over HTTP that any of gridwire's HTTP services must survive (the console and
the 2030.5 management API alike): garbage instead of HTTP, headers sent in part and then
dropped, dripped or held, bodies that stall, connections that say nothing, clients that never
read, clients that leave mid-request or mid-answer, pipelined requests, and bodies of 4 MiB
and more.

Each act takes the service's port from ``client.run.ports["http"]``; ``Service`` says what
the service is (its Host name, a request that is answered with a large body, one that takes
a while), so the same acts run against both.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass

from tests.fuzz.checks import check_http
from tests.fuzz.messages import LIMIT
from tests.fuzz.swarm import ANSWER_WITHIN, Act, Client
from tests.fuzz.wire import Malformed, Wire, chunked, request

HEADER_TIMEOUT = 10.0  # connection_limits.Limits defaults, which the services run with
BODY_TIMEOUT = 30.0
SLACK = 3.0  # seconds past a limit before a connection still held is a problem
SMALL_BUFFER = 4096  # receive buffer of a client that never reads


@dataclass(frozen=True)
class Service:
    """What the acts need to know of the service under fuzz."""

    host: str  # its Host name
    big: tuple[bytes, ...]  # requests answered with a large body
    slow: tuple[bytes, ...]  # requests whose answer takes a while (or forever)
    api: str  # a path whose answers are JSON
    envelopes: bool  # whether answers under /api are the operations service's envelopes


async def exchange(
    client: Client,
    port: int,
    sent: bytes,
    method: str = "POST",
    *,
    envelope: bool,
    ident: object = None,
    must: bool = True,
) -> None:
    """Send ``sent`` on a connection of its own and check the answer."""
    async with Wire.open(port) as wire:
        await wire.send(sent)
        await read_and_check(client, wire, sent, method, envelope=envelope, ident=ident, must=must)


async def read_and_check(
    client: Client,
    wire: Wire,
    sent: bytes,
    method: str,
    *,
    envelope: bool,
    ident: object = None,
    must: bool = True,
) -> bool:
    """Read one answer to ``sent`` and check it; whether the connection may carry more."""
    try:
        answer = await wire.answer(method, ANSWER_WITHIN)
    except TimeoutError:
        client.run.tally.messages += must
        if must:
            client.problem(f"no answer within {ANSWER_WITHIN} s", sent)
        return False
    except Malformed as exc:
        client.problem(f"an answer that is not HTTP: {exc}", sent)
        return False
    check_http(client, sent, answer, envelope=envelope, ident=ident, must=must)
    return answer is not None and answer.headers.get("connection", "").lower() != "close"


def _service(client: Client) -> tuple[Service, int]:
    service = client.run.about
    assert isinstance(service, Service)
    return service, client.run.ports["http"]


def _get(service: Service, path: str, **kw: object) -> bytes:
    return request("GET", path, host=service.host, content_type=None, **kw)  # type: ignore[arg-type]


# -- acts -----------------------------------------------------------------------------------


async def garbage(client: Client) -> None:
    """Octets that are not HTTP, or nearly: answered 4xx or closed, never 5xx."""
    rng = client.rng
    service, port = _service(client)
    junk = bytes(rng.randrange(256) for _ in range(rng.choice([1, 16, 400, 4000])))
    sent = rng.choice(
        [
            junk,
            b"\r\n\r\n",
            b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",  # an HTTP/2 preface
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + junk,  # a TLS ClientHello
            b"GET / HTTP/1.1\r\nHost: " + service.host.encode() + b"\r\nNoColon\r\n\r\n",
            b"GET / HTTP/9.9\r\n\r\n",
            b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n",  # beyond any header bound
            _get(service, "/", extra=[("X-Big", "b" * 20_000)]),
            _get(service, "/", extra=[(f"X-{n}", "v") for n in range(2000)]),
            b"POST /api HTTP/1.1\r\nHost: " + service.host.encode()
            + b"\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}",
            b"POST /api HTTP/1.1\r\nHost: " + service.host.encode()
            + b"\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
            b"GET / HTTP/1.1\r\nHost: " + service.host.encode() + b"\r\n\x00\xff: \x01\r\n\r\n",
        ]
    )  # fmt: skip
    async with Wire.open(port) as wire:
        await wire.send(sent)
        await read_and_check(client, wire, sent, "GET", envelope=False, must=False)
        if rng.random() < 0.5:
            wire.reset()


async def half_headers(client: Client) -> None:
    """Part of a request's headers, then a close, a reset, a drip or silence. A connection
    still open well after the header timeout is a problem."""
    rng = client.rng
    service, port = _service(client)
    whole = _get(service, service.api, extra=[("X-Pad", "p" * rng.randint(0, 500))])
    part = whole[: rng.randrange(1, len(whole) - 2)]
    how = rng.choice(["fin", "rst", "hold", "drip"])
    async with Wire.open(port) as wire:
        opened = time.monotonic()
        await wire.send(part)
        if how == "fin":
            wire.half_close()
            await wire.closed_within(ANSWER_WITHIN)
        elif how == "rst":
            wire.reset()
        elif how == "drip":
            await wire.send_slowly(whole[len(part) : -2], pieces=40, pause=0.5)
            await _held(client, wire, opened, HEADER_TIMEOUT, "headers dripped")
        else:
            await _held(client, wire, opened, HEADER_TIMEOUT, "half-sent headers")


async def _held(client: Client, wire: Wire, since: float, limit: float, what: str) -> None:
    """Hold ``wire`` until the service closes it or the run ends; a problem if it stays open
    more than ``limit`` + :data:`SLACK` seconds after ``since``."""
    closed = await wire.closed_within(max(0.0, client.remaining()))
    held = time.monotonic() - since
    if not closed and held > limit + SLACK:
        client.problem(f"{what}: the connection was still open after {held:.1f} s")
    if not closed:
        wire.reset()


async def stalled_body(client: Client) -> None:
    """Headers promising a body, part of it, then a close, a reset, silence, or the rest
    dripped an octet at a time: held, the connection must end within the body timeout
    (on the console with a 408 envelope)."""
    rng = client.rng
    service, port = _service(client)
    body = b'{"outstation": "der", "kind": "class0"}' + b" " * rng.choice([0, 100])
    how = rng.choice(["fin", "rst", "hold", "drip"])
    # Dripped, the body must not end: the length declared is the limit.
    declared = LIMIT if how == "drip" else rng.choice([len(body) + 1, 1000, LIMIT])
    head = request("POST", service.api, body=None, host=service.host, length=declared)
    sent = head + body[: rng.randrange(len(body))]
    async with Wire.open(port) as wire:
        opened = time.monotonic()
        await wire.send(sent)
        if how == "rst":
            wire.reset()
            return
        if how == "fin":
            wire.half_close()
            await wire.closed_within(ANSWER_WITHIN)
            return
        if how == "drip":
            dripping = asyncio.ensure_future(wire.send_slowly(b" " * 200, pieces=200, pause=0.5))
        try:
            if client.remaining() < BODY_TIMEOUT + SLACK:
                await _held(client, wire, opened, BODY_TIMEOUT, f"a body {how}")
                return
            with contextlib.suppress(Malformed):
                answer = await wire.answer("POST", BODY_TIMEOUT + SLACK)
                if service.envelopes and answer is not None and answer.status != 408:
                    client.problem(f"a stalled body answered {answer.status}", sent)
            await _held(client, wire, opened, BODY_TIMEOUT, f"a body {how}, once answered")
        except TimeoutError:
            client.problem(f"a body {how}: no answer within {BODY_TIMEOUT + SLACK} s", sent)
        finally:
            if how == "drip":
                dripping.cancel()


async def idle(client: Client) -> None:
    """A connection that says nothing: closed by the service at the header timeout."""
    _, port = _service(client)
    async with Wire.open(port) as wire:
        await _held(client, wire, time.monotonic(), HEADER_TIMEOUT, "a silent connection")


async def slow_reader(client: Client) -> None:
    """Requests with large answers, a 4 KiB receive buffer, nothing read; then it leaves."""
    rng = client.rng
    service, port = _service(client)
    sent = b"".join(rng.choice(service.big) for _ in range(rng.randint(1, 4)))
    async with Wire.open(port, rcvbuf=SMALL_BUFFER) as wire:
        await wire.send(sent)
        await client.linger()
        wire.reset() if rng.random() < 0.7 else wire.half_close()


async def cut_mid_request(client: Client) -> None:
    """A request cut anywhere (headers or body) by a close or a reset."""
    rng = client.rng
    service, port = _service(client)
    message = client.messages.body("status")
    sent = request("POST", service.api, message.data, host=service.host)
    async with Wire.open(port) as wire:
        await wire.send(sent[: rng.randrange(1, len(sent))])
        await asyncio.sleep(rng.choice([0, 0, 0.01, 0.2]))
        wire.reset() if rng.random() < 0.5 else wire.half_close()


async def cut_mid_answer(client: Client) -> None:
    """A whole request whose answer is large or slow, and the client gone before reading
    all of it (a reset, or a close) after reading nothing or a little."""
    rng = client.rng
    service, port = _service(client)
    sent = rng.choice(service.big + service.slow)
    async with Wire.open(port) as wire:
        await wire.send(sent)
        await asyncio.sleep(rng.choice([0, 0.001, 0.05, 0.3]))
        if rng.random() < 0.5:
            with contextlib.suppress(TimeoutError, ConnectionError):
                await asyncio.wait_for(wire.reader.read(rng.randint(1, 2000)), 1)
        wire.reset() if rng.random() < 0.7 else wire.writer.close()


async def oversize(client: Client) -> None:
    """A body over 4 MiB: declared (answered 413 before it is read), streamed in chunks
    (413 as soon as it passes the limit), or declared and never sent."""
    rng = client.rng
    service, port = _service(client)
    how = rng.choice(["declared", "chunked", "promised"])
    async with client.run.big:
        body = b'{"x": "' + b"a" * (LIMIT + rng.randint(0, 65536)) + b'"}'
        if how == "declared":
            sent = request("POST", service.api, body, host=service.host)
        elif how == "chunked":
            head = request("POST", service.api, None, host=service.host,
                           extra=[("Transfer-Encoding", "chunked")])  # fmt: skip
            sent = head + chunked(body, rng.choice([1 << 10, 64 << 10, 1 << 20]))
        else:
            sent = request("POST", service.api, None, host=service.host, length=10**12)
        async with Wire.open(port) as wire:
            sending = asyncio.ensure_future(wire.send(sent))
            await read_and_check(
                client, wire, sent[:2000], "POST", envelope=service.envelopes, must=True
            )
            sending.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sending


def common_acts() -> list[tuple[float, Act, bool]]:
    """The acts above with their weights, and whether each holds a connection idle."""
    return [
        (5, garbage, False),
        (5, half_headers, True),
        (4, stalled_body, True),
        (2, idle, True),
        (3, slow_reader, True),
        (4, cut_mid_request, False),
        (4, cut_mid_answer, False),
        (1, oversize, False),
    ]
