"""A scripted outstation for the master's tests: an asyncio TCP server on a free loopback port
that hands the test every frame the master writes (cut by the LENGTH octet, nothing of
gridwire's parsing involved) and writes whatever octets the test gives it.

Frames the test sends are laid out by hand with tests/master/wire.py (the tests' own
bitwise CRC), so a test states the octets on the wire literally.
"""

from __future__ import annotations

import asyncio
from types import TracebackType

from tests.master.wire import from_outstation
from tests.support.net import free_port


def frame_size(length: int) -> int:
    """Octets of a frame whose LENGTH octet is ``length``: the 10-octet header, the user
    data (LENGTH - 5) and two CRC octets per 16-octet block (IEEE 1815-2012 clause 9.2)."""
    data = length - 5
    return 10 + data + 2 * ((data + 15) // 16)


def user_data(frame: bytes) -> bytes:
    """The user data of one good frame, CRCs removed (transport header first)."""
    body = frame[10:]
    return b"".join(body[at : at + 16] for at in range(0, len(body), 18))


def response(
    seq: int,
    body: bytes = b"",
    *,
    iin: bytes = b"\x00\x00",
    con: bool = False,
    fir: bool = True,
    fin: bool = True,
    unsolicited: bool = False,
    tr_seq: int = 0,
) -> bytes:
    """One response fragment in one transport segment in one frame from the outstation.

    Application control: FIR 0x80, FIN 0x40, CON 0x20, UNS 0x10, seq; function 0x81
    (RESPONSE) or 0x82 (UNSOLICITED_RESPONSE, with UNS); then IIN1, IIN2 and ``body``.
    Transport header: FIR 0x40 | FIN 0x80 | ``tr_seq``."""
    control = (0x80 if fir else 0) | (0x40 if fin else 0) | (0x20 if con else 0) | seq
    control |= 0x10 if unsolicited else 0
    app = bytes((control, 0x82 if unsolicited else 0x81)) + iin + body
    assert len(app) <= 249
    return from_outstation(bytes((0xC0 | tr_seq,)) + app)


class ScriptedOutstation:
    """``async with ScriptedOutstation() as out``: ``out.port``; ``await out.frame()`` the
    next frame the master wrote; ``out.send(octets)``; ``await out.accepted()``."""

    def __init__(self) -> None:
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._frames: asyncio.Queue[bytes] = asyncio.Queue()
        self._writer: asyncio.StreamWriter | None = None
        self._connected = asyncio.Event()
        self.connections = 0
        self.on_connect: bytes = b""

    async def __aenter__(self) -> ScriptedOutstation:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    async def stop(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self.connections += 1
        if self.on_connect:
            writer.write(self.on_connect)
        self._connected.set()
        buffer = b""
        try:
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                buffer += chunk
                while len(buffer) >= 3:
                    start = buffer.find(b"\x05\x64")
                    if start < 0:
                        buffer = b""
                        break
                    buffer = buffer[start:]
                    if len(buffer) < 3:
                        break
                    size = frame_size(buffer[2])
                    if len(buffer) < size:
                        break
                    self._frames.put_nowait(buffer[:size])
                    buffer = buffer[size:]
        except (ConnectionError, asyncio.CancelledError):
            pass  # the test is ending
        finally:
            writer.close()

    async def accepted(self, within: float = 10.0) -> None:
        await asyncio.wait_for(self._connected.wait(), within)

    async def frame(self, within: float = 10.0) -> bytes:
        return await asyncio.wait_for(self._frames.get(), within)

    async def no_frame(self, within: float) -> bool:
        """True when the master writes nothing for ``within`` seconds."""
        try:
            await asyncio.wait_for(self._frames.get(), within)
        except TimeoutError:
            return True
        return False

    def send(self, octets: bytes) -> None:
        assert self._writer is not None, "no master connected"
        self._writer.write(octets)

    def drop(self) -> None:
        """Close the master's connection from this side."""
        if self._writer is not None:
            self._writer.close()
