"""A TCP relay between the master and an outstation that cuts the connection where a test
arms it: after N more octets in one direction it closes both sides (FIN), resets both sides
(RST, SO_LINGER 0), or stalls (holds what arrives either way for a while, then delivers it
late). Every connection the master makes again goes through it as well.

    async with CuttingRelay(outstation_port) as relay:
        relay.arm("up", after=7, how="rst")     # the master's 8th octet from now is not sent
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from dataclasses import dataclass
from typing import Literal

Direction = Literal["up", "down"]  # up: master to outstation
How = Literal["fin", "rst", "stall"]


@dataclass
class Armed:
    direction: Direction
    after: int  # octets still let through in that direction
    how: How
    stall: float


class CuttingRelay:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.armed: Armed | None = None
        self.cuts: list[str] = []  # what was done, for the report
        self._server: asyncio.Server | None = None
        self._pairs: set[asyncio.Task[None]] = set()
        self._stalled = asyncio.Event()
        self._stalled.set()  # set: data flows

    async def __aenter__(self) -> CuttingRelay:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._pairs):
            task.cancel()
        await asyncio.gather(*self._pairs, return_exceptions=True)

    async def flowing(self) -> None:
        """Until no stall holds what the relay carries."""
        await self._stalled.wait()

    def arm(self, direction: Direction, after: int, how: How, stall: float = 0.0) -> None:
        self.armed = Armed(direction, after, how, stall)

    async def _accept(self, down_r: asyncio.StreamReader, down_w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._pairs.add(task)
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            down_w.close()
            self._pairs.discard(task)
            return
        writers = (down_w, up_w)
        try:
            await asyncio.gather(
                self._pump("up", down_r, up_w, writers), self._pump("down", up_r, down_w, writers)
            )
        except (ConnectionError, OSError, asyncio.CancelledError):
            pass
        finally:
            for writer in writers:
                writer.transport.abort()
            self._pairs.discard(task)

    async def _pump(
        self,
        direction: Direction,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        both: tuple[asyncio.StreamWriter, asyncio.StreamWriter],
    ) -> None:
        while data := await reader.read(4096):
            await self._stalled.wait()
            armed = self.armed
            if armed is not None and armed.direction == direction and len(data) > armed.after:
                self.armed = None
                head, tail = data[: armed.after], data[armed.after :]
                writer.write(head)
                await writer.drain()
                self.cuts.append(f"{armed.how} {direction} after {armed.after}")
                if armed.how == "stall":
                    await self._stall(armed.stall)
                    writer.write(tail)  # delivered late
                    await writer.drain()
                    continue
                _cut(both, reset=armed.how == "rst")
                return
            if armed is not None and armed.direction == direction:
                armed.after -= len(data)
            writer.write(data)
            await writer.drain()
        with contextlib.suppress(OSError, RuntimeError):
            writer.write_eof()

    async def _stall(self, seconds: float) -> None:
        self._stalled.clear()
        try:
            await asyncio.sleep(seconds)
        finally:
            self._stalled.set()


def _cut(writers: tuple[asyncio.StreamWriter, ...], *, reset: bool) -> None:
    for writer in writers:
        if reset:
            sock = writer.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            writer.transport.abort()
        else:
            writer.close()  # FIN, once what is buffered is sent
