"""Several outstations on one link, each by its link address (DESIGN D189): what a master's
multi-drop channel talks to in tests and demos (``gridwire sim --addresses``).

The link is a TCP port (one master connection at a time; a new one replaces the old), a serial
device, or a UDP socket (answering whoever sent the latest datagram). Every octet received is
offered to every outstation's session: each one's link layer takes only the frames addressed to
it (and broadcasts), as on an RS-485 line where every station hears everything. What each
answers is written frame by frame (a UDP link packs a loop turn's frames into datagrams).

Embedding::

    server = DropServer({1024: device_a, 1025: device_b})
    await server.serve_tcp("127.0.0.1", 0)   # or serve_serial(SerialChannel(...)), serve_udp(...)
    ...
    await server.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
from collections.abc import Callable, Mapping

from gridwire.channels.links import PhysicalLink, open_serial, open_udp
from gridwire.channels.settings import ETHERNET_DATAGRAM, SerialChannel
from gridwire.errors import ConfigError
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database import Database
from gridwire.outstation.device import Device
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.session import OutstationSession
from gridwire.process.clock import SYSTEM_CLOCK, Clock, wall_ms

log = logging.getLogger("gridwire.outstation")


class _TcpSide(asyncio.Protocol):
    def __init__(self, server: DropServer) -> None:
        self._server = server
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._server.connected(transport.write, transport.close)

    def data_received(self, data: bytes) -> None:
        if self._transport is not None:
            self._server.received(data, self._transport.write)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._transport is not None:
            self._server.disconnected(self._transport.write)


class DropServer:
    """Serves several devices, one per link address, on one link."""

    def __init__(
        self,
        devices: Mapping[int, Device | Database],
        *,
        config: OutstationConfig | None = None,
        tick_interval: float = 1.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        if not devices:
            raise ConfigError("give at least one link address")
        if not tick_interval > 0:
            raise ConfigError(f"tick_interval must be more than 0 seconds, not {tick_interval}")
        base = config or OutstationConfig()
        self.sessions: dict[int, OutstationSession] = {}
        for address, device in devices.items():
            served = GenericDevice(device) if isinstance(device, Database) else device
            own = dataclasses.replace(base, outstation_address=address)
            self.sessions[address] = OutstationSession(served, own)
        self.tick_interval = tick_interval
        self.clock = clock
        self._write: Callable[[bytes], None] | None = None
        self._close_current: Callable[[], None] | None = None
        self._server: asyncio.Server | None = None
        self._link: PhysicalLink | None = None
        self._timer: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._last_tick = -math.inf
        self.port: int | None = None
        self.connections = 0

    # -- links ---------------------------------------------------------------------------
    async def serve_tcp(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (0: a free port, then in :attr:`port`)."""
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: _TcpSide(self), host, port)
        self.port = int(self._server.sockets[0].getsockname()[1])
        self._start()

    async def serve_serial(self, settings: SerialChannel) -> None:
        """Answer on the serial device of ``settings``."""
        link = await open_serial(settings, self._from_link, self._link_lost)
        self._attach(link)

    async def serve_udp(self, host: str, port: int, max_datagram: int = ETHERNET_DATAGRAM) -> None:
        """Answer datagrams on ``host:port`` (0: a free port, then in :attr:`port`)."""
        link = await open_udp((host, port), None, max_datagram, self._from_link, self._link_lost)
        self.port = link.local[1]
        self._attach(link)

    def _attach(self, link: PhysicalLink) -> None:
        self._link = link
        self._start()
        self.connected(link.write, link.close)

    def _from_link(self, data: bytes) -> None:
        if self._link is not None:
            self.received(data, self._link.write)

    def _link_lost(self, reason: str | None) -> None:
        if self._link is not None:
            self.disconnected(self._link.write)
            self._link = None

    def _start(self) -> None:
        self.sessions_anchor()
        self._timer = asyncio.create_task(self._run_timers(), name="multi-drop timers")

    def sessions_anchor(self) -> None:
        for session in self.sessions.values():
            session.database.clock.anchor(wall_ms(self.clock), self.clock.monotonic())

    # -- the sessions --------------------------------------------------------------------
    def connected(self, write: Callable[[bytes], None], close: Callable[[], None]) -> None:
        """A master is on the link (a TCP connection replaces the one before it)."""
        if self._close_current is not None and self._write != write:
            self._close_current()
        self._write, self._close_current = write, close
        self.connections += 1
        now = self.clock.monotonic()
        for session in self.sessions.values():
            self._send(session.connect(now))
        self._wake.set()

    def disconnected(self, write: Callable[[bytes], None]) -> None:
        if self._write != write:
            return
        self._write = self._close_current = None
        now = self.clock.monotonic()
        for session in self.sessions.values():
            session.disconnect(now)

    def received(self, data: bytes, write: Callable[[bytes], None]) -> None:
        if self._write != write:
            return
        now = self.clock.monotonic()
        for session in self.sessions.values():
            try:
                self._send(session.receive(data, now))
            except Exception:
                log.exception(
                    "outstation %d failed on a request", session.channel.outstation_address
                )
        self._wake.set()

    def _send(self, frames: list[bytes]) -> None:
        write = self._write
        if write is not None:
            for frame in frames:
                write(frame)

    async def _run_timers(self) -> None:
        while True:
            now = self.clock.monotonic()
            deadlines = [s.deadline for s in self.sessions.values() if s.deadline is not None]
            wake = min([self._last_tick + self.tick_interval, *deadlines])
            if wake > now:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wake - now):
                        await self._wake.wait()
            self._wake.clear()
            now = self.clock.monotonic()
            tick = now >= self._last_tick + self.tick_interval
            if tick:
                self._last_tick = now
            for session in self.sessions.values():
                try:
                    if tick:
                        session.device.tick(now)
                    frames = session.poll(now)
                except Exception:
                    log.exception("outstation timers failed")
                    frames = []
                if self._write is not None:
                    self._send(frames)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        if self._close_current is not None:
            self._close_current()
        link, self._link = self._link, None
        if link is not None:
            link.close()
            await link.wait_closed()
        if self._timer is not None:
            self._timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._timer
            self._timer = None
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None
