"""Hostile acts peculiar to the console's HTTP service (``gridwire console``): hostile
messages on ``POST /api`` and ``POST /api/<operation>``, bodies framed wrong or typed wrong,
requests from a foreign page (Origin, Host), any method on any path, pipelined requests, and
event streams that are never read. Every whole request to ``/api`` must be answered with an
envelope; see :mod:`tests.fuzz.checks`.
"""

from __future__ import annotations

import contextlib
from urllib.parse import quote

from tests.fuzz.http_acts import (
    SMALL_BUFFER,
    Service,
    common_acts,
    exchange,
    read_and_check,
)
from tests.fuzz.messages import OUTSTATION
from tests.fuzz.swarm import Act, Client
from tests.fuzz.wire import Wire, chunked, request


def console(port: int) -> Service:
    host = f"127.0.0.1:{port}"

    def post(op: str, body: bytes) -> bytes:
        return request("POST", f"/api/{op}", body, host=host)

    der = b'{"outstation": "%s"}' % OUTSTATION.encode()
    never = b'{"outstation": "der", "timeout": 86400, "value": {"type": "ai", "index": 537, "at_least": 1e12}}'  # fmt: skip
    return Service(
        host=host,
        big=(
            request("GET", "/openapi.json", host=host, content_type=None),
            post("profile", der),
            post("capture", der),
            post("der.functions", der),
        ),
        slow=(
            post("wait_for", never),  # runs for a day unless its client's leaving cancels it
            post("scan", b'{"outstation": "der", "kind": "integrity"}'),
            post("der.read", b'{"outstation": "der", "group": "Monitoring"}'),
        ),
        api="/api/status",
        envelopes=True,
    )


def _service(client: Client) -> Service:
    service = client.run.about
    assert isinstance(service, Service)
    return service


async def api_message(client: Client) -> None:
    """A hostile message on ``POST /api``: an envelope with its id (null when unusable)."""
    service = _service(client)
    message = client.messages.message()
    sent = request("POST", "/api", message.data, host=service.host)
    big = len(sent) > 1 << 20
    async with client.run.big if big else contextlib.nullcontext():
        await exchange(client, client.run.ports["http"], sent, envelope=True, ident=message.ident)


async def op_route(client: Client) -> None:
    """Hostile parameters on ``POST /api/<operation>`` (names that do not exist among them)."""
    service = _service(client)
    name = client.messages.operation()
    body = client.messages.body(name)
    path = "/api/" + quote(name, safe="")
    sent = request("POST", path, body.data, host=service.host)
    await exchange(client, client.run.ports["http"], sent, envelope=True, ident=None)


async def framing(client: Client) -> None:
    """A body missing, empty, typed wrong, chunked, or its length wrong."""
    rng = client.rng
    host = _service(client).host
    path = rng.choice(["/api/status", "/api", "/api/values", "/api/stop", "/api/operate"])
    refused_only = path in ("/api/stop", "/api/operate")  # never run: no body or not JSON
    body = b'{"outstation": "der"}' if path != "/api" else b'{"op": "status"}'
    cases: list[tuple[bytes, bool]] = [  # octets, whether a whole request (an envelope is due)
        (request("POST", path, None, host=host), True),
        (request("POST", path, b"", host=host), True),
        (request("POST", path, body, host=host, content_type="text/plain"), True),
        (request("POST", path, body, host=host, content_type=None), True),
        (
            request(
                "POST", path, b"a=1", host=host, content_type="application/x-www-form-urlencoded"
            ),
            True,
        ),
        (request("POST", path, body, host=host, content_type="application/jsonx"), True),
        (
            request("POST", path, body, host=host, content_type="multipart/form-data; boundary=x"),
            True,
        ),
        (request("POST", path, b"A" * 20, host=host, content_type="application/json"), True),
        (request("POST", path, body, host=host, length=len(body) - 3), True),  # a short length
        (request("POST", path, body, host=host, length=-1), False),
        (request("POST", path, body, host=host, extra=[("Content-Length", "abc")]), False),
    ]
    if not refused_only:
        cases += [
            (
                request(
                    "POST", path, body, host=host, content_type="Application/JSON; charset=utf-8"
                ),
                True,
            ),
            (
                request("POST", path, None, host=host, extra=[("Transfer-Encoding", "chunked")])
                + chunked(body, 3),
                True,
            ),
            (request("POST", path, body, host=host, extra=[("Expect", "100-continue")]), True),
        ]
    sent, whole = rng.choice(cases)
    await exchange(client, client.run.ports["http"], sent, envelope=whole, must=whole)


async def foreign(client: Client) -> None:
    """A request as a page of another site would make it, or through DNS rebinding: 403
    with an envelope (a same-origin one is answered as usual)."""
    rng = client.rng
    host = _service(client).host
    port = client.run.ports["http"]
    origin = rng.choice(
        ["http://evil.example", "null", "https://127.0.0.1.evil.example", f"http://{host}",
         f"http://localhost:{port}", "file://", "http://127.0.0.1", None]
    )  # fmt: skip
    header_host = rng.choice(
        [host, host, f"localhost:{port}", f"evil.example:{port}", "127.0.0.1", f"[::1]:{port}",
         f"127.0.0.1:{port + 1}", f"LOCALHOST:{port}", f"127.0.0.1.:{port}"]
    )  # fmt: skip
    extra = [("Origin", origin)] if origin is not None else []
    path, body = rng.choice(
        [("/api/status", b"{}"), ("/api/stop", None), ("/api/operate",
         b'{"outstation": "der", "points": {"bo": {"0": true}}, "fuzz_unknown_parameter": 1}'),
         ("/api", b'{"op": "values", "outstation": "der"}')]
    )  # fmt: skip
    sent = request("POST", path, body, host=header_host, extra=extra)
    # /api/stop without a body is refused whoever asks; the operate is refused for its
    # unknown parameter when it gets that far.
    await exchange(client, port, sent, envelope=True)


async def method_path(client: Client) -> None:
    """Any method on any path: under /api an envelope (405 for a method not POST), elsewhere
    an answer that is not a 5xx."""
    rng = client.rng
    host = _service(client).host
    method = rng.choice(["GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "POST",
                         "BREW", "get", "CONNECT"])  # fmt: skip
    path = rng.choice(
        ["/", "/api", "/api/", "/api/status", "/api/../api/status", "/api//status", "/console/",
         "/console/../../../etc/passwd", "/console/%2e%2e/%2e%2e/etc/passwd", "/openapi.json",
         "/%00", "/api/%00", "/api/status?token=x&token=y", "/api/der.read/x", "/favicon.ico",
         "/" + "a" * 8000, "/api/" + "b" * 8000, "/api/st%61tus", "/events/x", "/api?x=1"]
    )  # fmt: skip
    body = rng.choice([None, b"{}", b"junk"])
    sent = request(method, path, body, host=host, content_type="application/json" if body else None)
    under_api = path.split("?")[0] == "/api" or path.startswith("/api/")
    await exchange(
        client, client.run.ports["http"], sent, method.upper(),
        envelope=under_api and method.upper() != "HEAD", must=method != "CONNECT",
    )  # fmt: skip


async def pipeline(client: Client) -> None:
    """Several requests on one connection, sent at once; each answered in order until one
    that closes the connection (a refusal does)."""
    rng = client.rng
    host = _service(client).host
    port = client.run.ports["http"]
    requests = []
    for _ in range(rng.randint(2, 8)):
        if rng.random() < 0.5:
            message = client.messages.message()
            if len(message.data) > 1 << 20:
                continue
            requests.append((request("POST", "/api", message.data, host=host), message.ident))
        else:
            name = client.messages.operation()
            body = client.messages.body(name).data
            requests.append(
                (request("POST", "/api/" + quote(name, safe=""), body, host=host), None)
            )
    async with Wire.open(port) as wire:
        await wire.send(b"".join(sent for sent, _ in requests))
        for n, (_, ident) in enumerate(requests):
            shown = b"".join(r[:200] + b"|" for r, _ in requests[: n + 1])  # all up to it
            if not await read_and_check(client, wire, shown, "POST", envelope=True, ident=ident):
                break  # a refusal closes the connection: what follows is not read
        if rng.random() < 0.3:
            wire.reset()


async def events_never_read(client: Client) -> None:
    """``GET /events`` with a 4 KiB receive buffer, never read, held, then left; now and
    then from a foreign page instead (403)."""
    rng = client.rng
    host = _service(client).host
    port = client.run.ports["http"]
    if rng.random() < 0.2:
        sent = request("GET", "/events", None, host=host, content_type=None,
                       extra=[("Origin", "http://evil.example")])  # fmt: skip
        await exchange(client, port, sent, "GET", envelope=True)
        return
    async with Wire.open(port, rcvbuf=SMALL_BUFFER) as wire:
        await wire.send(request("GET", "/events", None, host=host, content_type=None))
        await client.linger(at_most=30)
        wire.reset() if rng.random() < 0.7 else wire.half_close()


def console_acts() -> list[tuple[float, Act, bool]]:
    return [
        *common_acts(),
        (25, api_message, False),
        (20, op_route, False),
        (6, framing, False),
        (4, foreign, False),
        (5, method_path, False),
        (4, pipeline, False),
        (1, events_never_read, True),
    ]
