"""Hostile acts against the 2030.5 client's management API (``gridwire sep2 --api-bind``):
any method, path, query and headers under ``/api/v1`` (and ``/docs``, ``/openapi.json``),
besides the HTTP acts every service gets (tests/fuzz/http_acts.py).

Every whole request must be answered, never with a 5xx: the head-end's time was observed
before the run starts, so ``/api/v1/time`` has no reason for its 503. A JSON answer must
parse; a text ``/time`` is a whole number.
"""

from __future__ import annotations

import json

from tests.fuzz.checks import check_http
from tests.fuzz.http_acts import Service, common_acts, read_and_check
from tests.fuzz.swarm import ANSWER_WITHIN, Act, Client
from tests.fuzz.wire import Answer, Malformed, Wire, request


def sep2(port: int) -> Service:
    host = f"127.0.0.1:{port}"

    def get(path: str) -> bytes:
        return request("GET", path, host=host, content_type=None)

    return Service(
        host=host,
        big=(get("/openapi.json"), get("/docs"), get("/api/v1/status")),
        slow=(get("/api/v1/status"), get("/api/v1/time")),
        api="/api/v1/status",
        envelopes=False,
    )


PATHS = [
    "/api/v1/time", "/api/v1/time", "/api/v1/status", "/api/v1/status", "/api/v1/",
    "/api/v1", "/api/v1/nope", "/api/v1/time/", "/api/v1/../v1/time", "/api/v2/time",
    "/api/v1/time%00", "/api/v1/%2e%2e/status", "/api/v1/" + "a" * 4000, "/docs",
    "/openapi.json", "/", "/api/v1/status/x", "//api/v1/time", "/API/V1/TIME",
]  # fmt: skip
QUERIES = [
    "", "", "format=text", "format=json", "format=TEXT", "format=", "format=%FF%FE",
    "format=text&format=json", "token=x", "%zz", "a" * 6000, "format[]=text", "format=text;x",
    "&&&", "format=%00",
]  # fmt: skip
HEADERS = [
    ("Accept", "text/plain"), ("Accept", "application/json"), ("Accept", "*/*"),
    ("Accept", "text/*;q=0"), ("Accept", "\x7f\x01junk"), ("Accept", ""),
    ("Accept", "text/plain, application/json;q=0.1"), ("Authorization", "Bearer x"),
    ("Authorization", "Basic " + "A" * 3000), ("Content-Type", "text/xml"),
    ("Origin", "http://evil.example"), ("Cookie", "a=" + "c" * 4000),
    ("Range", "bytes=0-1"), ("If-None-Match", "*"), ("X-Forwarded-For", "1.2.3.4"),
    ("Connection", "close"), ("Connection", "keep-alive, Upgrade"), ("Upgrade", "websocket"),
    ("Accept-Encoding", "gzip, br, zstd"), ("Expect", "100-continue"),
]  # fmt: skip
METHODS = ["GET"] * 8 + ["HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "BREW"]


def _check_body(client: Client, sent: bytes, path: str, answer: Answer) -> None:
    """A 2xx JSON answer parses; a 2xx text /time is a whole number."""
    if not 200 <= answer.status < 300 or not answer.body:
        return
    if answer.json_type:
        try:
            json.loads(answer.body)
        except ValueError:
            client.problem(f"HTTP {answer.status}: JSON that does not parse", sent)
    elif (
        path == "/api/v1/time"
        and answer.headers.get("content-type", "").startswith("text/plain")
        and not answer.body.strip().isdigit()
    ):
        client.problem(f"/time as text is {answer.body[:100]!r}", sent)


async def hostile_get(client: Client) -> None:
    """Any method, path, query and headers: answered, never a 5xx."""
    rng = client.rng
    service = client.run.about
    assert isinstance(service, Service)
    method = rng.choice(METHODS)
    path = rng.choice(PATHS)
    query = rng.choice(QUERIES)
    target = path + ("?" + query if query else "")
    headers = rng.sample(HEADERS, rng.randint(0, 4))
    body = rng.choice([None, None, b"{}", b"<x/>" * 100]) if method != "GET" else None
    sent = request(method, target, body, host=service.host, content_type=None, extra=headers)
    keep = ("Connection", "close") not in headers and ("Upgrade", "websocket") not in headers
    async with Wire.open(client.run.ports["http"]) as wire:
        await wire.send(sent)
        try:
            answer = await wire.answer(method, ANSWER_WITHIN)
        except (TimeoutError, Malformed) as exc:
            client.run.tally.messages += 1
            client.problem(f"no answer: {exc!r}", sent)
            return
        check_http(client, sent, answer, envelope=False)
        if answer is not None and method != "HEAD":
            _check_body(client, sent, path, answer)
        if keep and answer is not None and rng.random() < 0.5:
            # Once more on the same connection: a keep-alive request after a hostile one.
            again = request("GET", "/api/v1/time?format=text", host=service.host, content_type=None)
            await wire.send(again)
            await read_and_check(client, wire, again, "GET", envelope=False, must=False)


def sep2_acts() -> list[tuple[float, Act, bool]]:
    return [*common_acts(), (60, hostile_get, False)]
