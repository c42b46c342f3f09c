"""The operations service running in the test's event loop on real loopback sockets (HTTP and
the line service over one master), and clients that speak to it only through those sockets:
httpx for HTTP, asyncio streams for the line service, raw sockets where a test must send
what a polite client would not (an oversized body, a body never finished).

    async with running_service(allow_control=True) as svc:
        async with HttpTransport(svc) as http:
            status, envelope = await http.post("scan", outstation="y", kind="integrity")
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from gridwire.der.profiles import ProfileLoader
from gridwire.master import Master, OutstationSettings
from gridwire.net.connection_limits import Limits
from gridwire.net.sockets import listening_socket
from gridwire.operations.declaration import OperationTable
from gridwire.transports.http_server import HttpServer
from gridwire.transports.line import LineServer
from gridwire.transports.service import Service
from tests.service.documented import Documented
from tests.support.net import free_port

Envelope = dict[str, Any]
TIMEOUT = 60.0


@dataclass
class Running:
    service: Service
    http_port: int
    line_port: int
    token: str | None

    @property
    def host(self) -> str:
        """The HTTP service's name, as a Host header must give it."""
        return f"127.0.0.1:{self.http_port}"

    @property
    def base_url(self) -> str:
        return f"http://{self.host}"

    @property
    def master(self) -> Master:
        return self.service.master


@contextlib.asynccontextmanager
async def running_service(
    *,
    allow_control: bool = False,
    token: str | None = None,
    idle: float = 60.0,
    keepalive: float = 15.0,
    outstations: Sequence[OutstationSettings] = (),
    table: OperationTable | None = None,
    limits: Limits | None = None,
    state_dir: Path | None = None,
    trace_budget: int | None = None,
) -> AsyncIterator[Running]:
    budget = {} if trace_budget is None else {"trace_budget": trace_budget}
    master = Master(allow_control=allow_control, profiles=ProfileLoader(None), **budget)
    service = Service(master, table, idle=idle, keepalive=keepalive, state_dir=state_dir)
    http = HttpServer(service, listening_socket("127.0.0.1", free_port()), token, limits)
    line = LineServer(service, "127.0.0.1", free_port(), limits=limits)

    async def close_on_stop() -> None:
        # As the runner does: once stop is asked for, the servers close.
        await service.stopping.wait()
        await line.close()
        await http.close()

    closing = asyncio.ensure_future(close_on_stop())
    try:
        for settings in outstations:
            await master.add(settings)
        await http.start()
        await line.start()
        yield Running(service, http.port, line.port, token)
    finally:
        service.stopping.set()
        await closing
        await master.close()


def outstation(port: int, name: str = "y", **fields: Any) -> OutstationSettings:
    return OutstationSettings(name=name, host="127.0.0.1", port=port, **fields)


class HttpTransport:
    """POST /api/<op> with the parameters as the body (the outstation among them). Every
    answer is checked against the OpenAPI document the service serves (its status listed for
    the route, its body matching the schema)."""

    name = "http"

    def __init__(self, running: Running, token: str | None = None) -> None:
        self.running = running
        token = token if token is not None else running.token
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.client = httpx.AsyncClient(base_url=running.base_url, headers=headers, timeout=TIMEOUT)
        self.documented: Documented | None = None

    async def __aenter__(self) -> HttpTransport:
        document = await self.client.get("/openapi.json")
        self.documented = Documented(document.json())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()

    async def post(self, op: str, **params: Any) -> tuple[int, Envelope]:
        response = await self.client.post(f"/api/{op}", json=params)
        body = response.json()
        if self.documented is not None and op in self.running.service.table:
            self.documented.check(f"/api/{op}", response.status_code, body)
        return response.status_code, body

    async def call(self, op: str, outstation: str | None = None, **params: Any) -> Envelope:
        if outstation is not None:
            params["outstation"] = outstation
        return (await self.post(op, **params))[1]


class LineTransport:
    """One connection to the line service; each call is one message line and one answer."""

    name = "line"

    def __init__(self, running: Running) -> None:
        self.running = running
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self._ids = 0
        self.events: list[Envelope] = []

    async def __aenter__(self) -> LineTransport:
        self.reader, self.writer = await asyncio.open_connection(
            "127.0.0.1", self.running.line_port, limit=64 << 20
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(ConnectionError):
                await self.writer.wait_closed()

    async def send_line(self, data: bytes) -> None:
        assert self.writer is not None
        self.writer.write(data)
        await self.writer.drain()

    async def read_line(self, timeout: float = TIMEOUT) -> Envelope | None:  # noqa: ASYNC109
        """The next line as JSON, or None at the end of the stream."""
        assert self.reader is not None
        line = await asyncio.wait_for(self.reader.readline(), timeout)
        if not line:
            return None
        decoded: Envelope = orjson.loads(line)
        return decoded

    async def answer(self, ident: object, timeout: float = TIMEOUT) -> Envelope:  # noqa: ASYNC109
        """The answer with this id; event lines met on the way are kept in ``events``."""
        while True:
            line = await self.read_line(timeout)
            assert line is not None, "the line service closed the connection"
            if "event" in line and "ok" not in line:
                self.events.append(line)
                continue
            return line

    async def message(self, message: dict[str, Any]) -> Envelope:
        self._ids += 1
        ident = message.setdefault("id", f"m{self._ids}")
        await self.send_line(orjson.dumps(message) + b"\n")
        answer = await self.answer(ident)
        assert answer["id"] == ident
        return answer

    async def call(self, op: str, outstation: str | None = None, **params: Any) -> Envelope:
        message: dict[str, Any] = {"op": op, "params": params}
        if outstation is not None:
            message["outstation"] = outstation
        return await self.message(message)


Transport = HttpTransport | LineTransport


@contextlib.asynccontextmanager
async def transport(kind: str, running: Running) -> AsyncIterator[Transport]:
    if kind == "http":
        async with HttpTransport(running) as http:
            yield http
    else:
        async with LineTransport(running) as line:
            yield line


def ok(envelope: Envelope) -> Any:
    """The result of an envelope that must be ok."""
    assert envelope.get("ok") is True, envelope
    return envelope["result"]


def error(envelope: Envelope, kind: str) -> str:
    """The message of an envelope that must be an error of ``kind``."""
    assert envelope.get("ok") is False, envelope
    assert envelope["error"]["kind"] == kind, envelope
    message: str = envelope["error"]["message"]
    return message


async def raw_http(port: int, request: bytes, *, read_for: float = 10.0) -> bytes:
    """Send octets to the HTTP port as they are and read what comes back until the server
    closes or ``read_for`` seconds pass."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        chunks = bytearray()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(read_for):
                while True:
                    chunk = await reader.read(65536)
                    if not chunk:
                        break
                    chunks += chunk
                    if b"\r\n\r\n" in chunks and _complete(bytes(chunks)):
                        break
        return bytes(chunks)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def _complete(response: bytes) -> bool:
    head, _, body = response.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def status_of(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


def body_of(response: bytes) -> Envelope:
    decoded: Envelope = orjson.loads(response.partition(b"\r\n\r\n")[2])
    return decoded
