"""The asyncio edge of the outstation: a TCP (or TLS) server, one master association at a time,
the session's timers, and the device's periodic tick.

Embedding (the service's demo starts the simulated DER this way)::

    async with run_outstation(device, "127.0.0.1", 0) as server:
        print(server.port)          # the port it listens on (0 picks a free one)
        ...
    # leaving the block closes it; ``await server.close()`` does the same earlier

``device`` is a :class:`~gridwire.outstation.device.Device` (a
:class:`~gridwire.simulator.der.SimulatedDer`, a
:class:`~gridwire.outstation.generic.GenericDevice`) or a bare
:class:`~gridwire.outstation.database.Database`, which is served as a generic device.

A second connection while one is open (decision "one association" in docs/DESIGN.md): with
``accept="replace"`` (the default) the old connection is closed and the new one served, so
a master whose connection died unseen (no FIN, a half-open socket) can always come back; with
``accept="refuse"`` the new connection is closed at once and the first keeps the outstation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

from gridwire.errors import ConfigError
from gridwire.net.tls_files import server_context
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.database import Database
from gridwire.outstation.device import Device
from gridwire.outstation.generic import GenericDevice
from gridwire.outstation.session import OutstationSession
from gridwire.outstation.tls import TlsSettings, allowed, peer_identity
from gridwire.process.clock import SYSTEM_CLOCK, Clock, wall_ms

log = logging.getLogger("gridwire.outstation")
Accept = Literal["replace", "refuse"]
READ_SIZE = 65536


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.closed = False

    def write(self, frames: list[bytes]) -> None:
        if frames and not self.closed and not self.writer.is_closing():
            self.writer.write(b"".join(frames))

    def close(self) -> None:
        self.closed = True
        self.writer.close()


class OutstationServer:
    """Serves one device to one master at a time. Create it, ``await start()``, and
    ``await close()`` when done (or use :func:`run_outstation`)."""

    def __init__(
        self,
        device: Device | Database,
        *,
        host: str = "127.0.0.1",
        port: int = 20000,
        config: OutstationConfig | None = None,
        tls: TlsSettings | None = None,
        accept: Accept = "replace",
        tick_interval: float = 1.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        if isinstance(device, Database):
            device = GenericDevice(device)
        if accept not in ("replace", "refuse"):
            raise ConfigError(f"accept must be 'replace' or 'refuse', not {accept!r}")
        if not tick_interval > 0:
            raise ConfigError(f"tick_interval must be more than 0 seconds, not {tick_interval}")
        self.device = device
        self.session = OutstationSession(device, config)
        self.host = host
        self.requested_port = port
        self.tls = tls
        self.accept = accept
        self.tick_interval = tick_interval
        self.clock = clock
        self._ssl: ssl.SSLContext | None = server_context(tls) if tls is not None else None
        self._server: asyncio.Server | None = None
        self._current: _Connection | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._timer: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._last_tick = -math.inf
        self._bound_port: int | None = None
        self.connections = 0
        self.refused = 0

    # -- life ----------------------------------------------------------------------------
    async def start(self) -> None:
        self.device.database.clock.anchor(wall_ms(self.clock), self.clock.monotonic())
        self._server = await asyncio.start_server(
            self._accept, self.host, self.requested_port, ssl=self._ssl
        )
        if self._server.sockets:
            self._bound_port = int(self._server.sockets[0].getsockname()[1])
        self._timer = asyncio.create_task(self._run_timers(), name="outstation timers")
        log.info("outstation listening on %s:%d", self.host, self.port)

    @property
    def port(self) -> int:
        """The port listened on (the one picked when 0 was asked for)."""
        return self._bound_port if self._bound_port is not None else self.requested_port

    @property
    def connected(self) -> bool:
        """Whether a master is connected now."""
        return self._current is not None

    @property
    def peer(self) -> str | None:
        """The connected master's address and port."""
        return None if self._current is None else self._current.peer

    async def close(self) -> None:
        """Stop listening, close the master's connection and stop the timers."""
        if self._server is not None:
            self._server.close()
        if self._current is not None:
            self._current.close()
        if self._timer is not None:
            self._timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._timer
            self._timer = None
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    async def serve_forever(self) -> None:
        if self._server is None:
            await self.start()
        assert self._server is not None
        await self._server.serve_forever()

    # -- connections ---------------------------------------------------------------------
    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        try:
            await self._serve(_Connection(reader, writer))
        finally:
            if task is not None:
                self._handlers.discard(task)

    async def _serve(self, conn: _Connection) -> None:
        if not self._admit(conn):
            self.refused += 1
            conn.close()
            return
        if self._current is not None:
            log.info("closing the connection of %s for %s", self._current.peer, conn.peer)
            self._current.close()
            self.session.disconnect(self.clock.monotonic())
        self._current = conn
        self.connections += 1
        log.info("master connected from %s", conn.peer)
        try:
            conn.write(self.session.connect(self.clock.monotonic()))
            self._wake.set()
            while True:
                data = await conn.reader.read(READ_SIZE)
                if not data:
                    break
                if self._current is not conn:
                    break
                conn.write(self.session.receive(data, self.clock.monotonic()))
                self._wake.set()
                await conn.writer.drain()
        except (ConnectionError, OSError, ssl.SSLError) as exc:
            log.info("connection of %s ended: %s", conn.peer, exc)
        except Exception:
            log.exception("outstation session failed; closing the connection of %s", conn.peer)
        finally:
            if self._current is conn:
                self._current = None
                self.session.disconnect(self.clock.monotonic())
                log.info("master %s disconnected", conn.peer)
            conn.close()

    def _admit(self, conn: _Connection) -> bool:
        if self._current is not None and self.accept == "refuse":
            log.info("refusing %s: %s is connected", conn.peer, self._current.peer)
            return False
        if self.tls is None:
            return True
        name, fingerprint = peer_identity(conn.writer.get_extra_info("ssl_object"))
        if allowed(self.tls.allow, name, fingerprint):
            return True
        log.warning(
            "refusing %s: certificate %s (sha256 %s) is not on the allow-list",
            conn.peer,
            name,
            fingerprint,
        )
        return False

    # -- timers --------------------------------------------------------------------------
    async def _run_timers(self) -> None:
        while True:
            now = self.clock.monotonic()
            next_tick = self._last_tick + self.tick_interval
            deadline = self.session.deadline
            wake = min(next_tick, deadline if deadline is not None else math.inf)
            if wake > now:
                # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that comes
                # as the event is set (close() does both), and this loop would never end.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wake - now):
                        await self._wake.wait()
            self._wake.clear()
            now = self.clock.monotonic()
            try:
                if now >= self._last_tick + self.tick_interval:
                    self._last_tick = now
                    self.device.tick(now)
                frames = self.session.poll(now)
            except Exception:
                log.exception("outstation timers failed")
                frames = []
            if self._current is not None:
                self._current.write(frames)


@asynccontextmanager
async def run_outstation(
    device: Device | Database,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    config: OutstationConfig | None = None,
    tls: TlsSettings | None = None,
    accept: Accept = "replace",
    tick_interval: float = 1.0,
) -> AsyncIterator[OutstationServer]:
    """Serve ``device`` on ``host:port`` (0: a free port, see ``server.port``) for the
    duration of the block."""
    server = OutstationServer(
        device,
        host=host,
        port=port,
        config=config,
        tls=tls,
        accept=accept,
        tick_interval=tick_interval,
    )
    await server.start()
    try:
        yield server
    finally:
        await server.close()
