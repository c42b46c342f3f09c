"""Raw client connections for the fuzz runs: octets sent exactly as given (a hostile client
writes what no library would), answers read back with h11 (a parser we did not write), and
the ways a client leaves: a close (FIN), a reset (RST, SO_LINGER 0), or silence.

    async with Wire.open(port, rcvbuf=4096) as wire:
        await wire.send(b"POST /api HTTP/1.1\\r\\n...")
        answer = await wire.answer("POST", within=15)
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import h11

HOST = "127.0.0.1"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes = b""

    @property
    def json_type(self) -> bool:
        return self.headers.get("content-type", "").startswith("application/json")


class Malformed(Exception):
    """The service's answer is not HTTP."""


@dataclass
class Wire:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    parser: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))
    sent_ok: bool = True
    dropped: bytes = b""

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, port: int, *, rcvbuf: int | None = None) -> AsyncIterator[Wire]:
        """A connection to ``port``; on the way out it is closed, or reset if :meth:`reset`
        was asked for (a connection never closed by the service is closed here)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, (HOST, port))
            reader, writer = await asyncio.open_connection(sock=sock, limit=8 << 20)
        except BaseException:
            sock.close()
            raise
        wire = cls(reader, writer)
        try:
            yield wire
        finally:
            writer.close()  # after reset(): nothing more

    async def send(self, data: bytes) -> bool:
        """Write ``data``; False once the service has closed or reset the connection."""
        if not self.sent_ok:
            return False
        try:
            self.writer.write(data)
            await self.writer.drain()
        except (ConnectionError, OSError):
            self.sent_ok = False
        return self.sent_ok

    async def send_slowly(self, data: bytes, pieces: int, pause: float) -> bool:
        step = max(1, len(data) // max(1, pieces))
        for start in range(0, len(data), step):
            if not await self.send(data[start : start + step]):
                return False
            await asyncio.sleep(pause)
        return True

    def reset(self) -> None:
        """Leave with a reset: whatever the service still sends is refused."""
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()

    def half_close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):
            self.writer.write_eof()

    async def closed_within(self, seconds: float) -> bool:
        """Read and drop until the service closes the connection; whether it did in time
        (what was read meanwhile is in :attr:`dropped`)."""
        try:
            async with asyncio.timeout(seconds):
                while data := await self.reader.read(65536):
                    self.dropped += data[: 1000 - len(self.dropped)]
        except TimeoutError:
            return False
        except (ConnectionError, OSError):
            pass
        return True

    async def answer(self, method: str, within: float) -> Answer | None:
        """The next HTTP answer, read whole; None when the connection ended before one was
        whole. TimeoutError when none is whole ``within`` seconds; :class:`Malformed` when
        what came is not HTTP."""
        parser = self.parser
        if parser.our_state is h11.DONE and parser.their_state is h11.DONE:
            parser.start_next_cycle()
        if parser.our_state is h11.IDLE:
            # h11 reads an answer only to a request it saw: it is told of ours, which was
            # sent as raw octets already.
            parser.send(h11.Request(method=method, target="/", headers=[("Host", HOST)]))
            parser.send(h11.EndOfMessage())
        status: int | None = None
        headers: dict[str, str] = {}
        body = bytearray()
        received = bool(parser.trailing_data[0])  # pipelined: it may have come already
        async with asyncio.timeout(within):
            while True:
                try:
                    event = parser.next_event()
                except h11.RemoteProtocolError as exc:
                    if not received:
                        return None  # closed before a single octet of an answer
                    raise Malformed(str(exc)) from None
                if event is h11.NEED_DATA:
                    try:
                        data = await self.reader.read(65536)
                    except (ConnectionError, OSError):
                        data = b""
                    received |= bool(data)
                    parser.receive_data(data)
                elif isinstance(event, h11.Response):
                    status = event.status_code
                    headers = {k.decode().lower(): v.decode("latin-1") for k, v in event.headers}
                elif isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    assert status is not None
                    return Answer(status, headers, bytes(body))
                elif isinstance(event, h11.ConnectionClosed):
                    return None
                # InformationalResponse (100 Continue): read on


def request(
    method: str,
    path: str,
    body: bytes | None = None,
    *,
    host: str | None,
    content_type: str | None = "application/json",
    extra: list[tuple[str, str]] | None = None,
    length: int | None = None,
) -> bytes:
    """An HTTP/1.1 request as octets. ``host`` None sends no Host header; ``length`` declares
    another Content-Length than the body's (None: the body's, when there is one)."""
    lines = [f"{method} {path} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    if content_type is not None:
        lines.append(f"Content-Type: {content_type}")
    if length is not None or body is not None:
        lines.append(f"Content-Length: {length if length is not None else len(body or b'')}")
    lines += [f"{name}: {value}" for name, value in extra or []]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")


def chunked(body: bytes, size: int) -> bytes:
    """``body`` in chunks of ``size`` octets, then the last chunk."""
    out = bytearray()
    for start in range(0, len(body), size):
        piece = body[start : start + size]
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    return bytes(out + b"0\r\n\r\n")
