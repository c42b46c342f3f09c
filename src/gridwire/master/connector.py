"""The life of one outstation's connection (DESIGN D16): connecting (with a wait, trying once
a second), losing it, reconnecting every ``reconnect`` seconds after a loss (never after a
failed connect or a disconnect), disconnecting, closing for good.

The :class:`Connector` hands the connection to the session's :class:`Wire` and tells the
session through two callbacks: ``on_up()`` once a connection is made (before its first
octets are delivered) and ``on_down()`` once it ended.

An outstation that closes the connection itself leaves ``last_error`` saying so and how long
the connection lasted ("closed by the outstation 0.0 s after connecting"); it stays through the
reconnections that follow until a connection brings octets, and is logged at most once a
minute (DESIGN D140).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Literal

from gridwire.capture import Endpoint
from gridwire.channels.base import Link
from gridwire.channels.channel import Channel
from gridwire.channels.links import open_tcp
from gridwire.errors import ConnectionFailed
from gridwire.master.limits import CONNECT_RETRY, CONNECT_TIMEOUT
from gridwire.master.settings import OutstationSettings
from gridwire.master.wire import Wire
from gridwire.process.clock import Clock
from gridwire.process.flag import Flag

log = logging.getLogger("gridwire.master.session")

CLOSED_LOG_EVERY = 60.0  # seconds between two log lines of an outstation closing on us

State = Literal["connecting", "connected", "disconnected"]


class Connector:
    """Connects, reconnects and disconnects one outstation (see the module's notes)."""

    def __init__(
        self,
        settings: OutstationSettings,
        clock: Clock,
        wire: Wire,
        *,
        on_data: Callable[[bytes], None],
        on_up: Callable[[], None],
        on_down: Callable[[], None],
        channel: Channel | None = None,
    ) -> None:
        self.settings = settings
        self.channel = channel  # a shared channel (DESIGN D184), else a connection of its own
        self.clock = clock
        self.wire = wire
        self._on_data = on_data
        self._on_up = on_up
        self._on_down = on_down
        self._state: State = "disconnected"
        self._tally: dict[str, int] | None = None  # the master's count of every state
        self.last_error: str | None = None
        self._opened_at = 0.0  # monotonic time of the latest connection
        self._closed_by_peer: str | None = None  # kept until a connection brings octets
        self._closed_logged_at: float | None = None
        self._closed_unlogged = 0
        # (master, outstation) ends of the latest connection, for captures.
        self.endpoints: tuple[Endpoint, Endpoint] | None = None
        self.up = Flag()  # set while connected
        self._lock = asyncio.Lock()
        self._reconnector: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = False

    @property
    def name(self) -> str:
        return self.settings.name

    @property
    def connected(self) -> bool:
        return self.wire.connection is not None

    @property
    def state(self) -> State:
        return self._state

    @state.setter
    def state(self, new: State) -> None:
        if self._tally is not None:
            self._tally[self._state] -= 1
            self._tally[new] += 1
        self._state = new

    def count_in(self, tally: dict[str, int] | None) -> None:
        """Keep ``tally`` (outstations by state, DESIGN D208) counting this one: its state
        now and every change of it; None takes it out of the tally it was in."""
        if self._tally is not None:
            self._tally[self._state] -= 1
        self._tally = tally
        if tally is not None:
            tally[self._state] += 1

    async def connect(self, wait: float | None = None) -> None:
        """Connect unless connected; with ``wait``, try once a second for that many seconds.
        ConnectionFailed with the last reason when no attempt succeeded."""
        if self._closed:
            raise ConnectionFailed(f"outstation {self.name} was removed")
        self._closing = False
        async with self._lock:
            if self.connected:
                return
            deadline = None if wait is None else self.clock.monotonic() + wait
            while True:
                try:
                    await self._open()
                    return
                except ConnectionFailed as exc:
                    self.last_error = str(exc)
                    now = self.clock.monotonic()
                    if deadline is None or now >= deadline or self._closing:
                        raise
                    await asyncio.sleep(min(CONNECT_RETRY, deadline - now))

    async def _open(self) -> None:
        s = self.settings
        self.state = "connecting"
        holder: list[Link] = []

        def lost(reason: str | None) -> None:
            if holder:
                self.lost(holder[0], reason)

        within = min(CONNECT_TIMEOUT, max(s.response_timeout, 1.0))
        conn: Link
        try:
            if self.channel is not None:
                address = s.outstation_address
                conn = await self.channel.attach(address, self._data, lost, within)
            else:
                conn = await open_tcp(s.host, s.port, s.tls, self._data, lost, within, hold=True)
        except ConnectionFailed:
            self.state = "disconnected"
            raise
        holder.append(conn)
        if self._closing or self._closed:
            conn.close()
            self.state = "disconnected"
            raise ConnectionFailed(f"outstation {self.name} was disconnected while connecting")
        self.wire.attach(conn)
        self.up.set()
        self.state = "connected"
        self._opened_at = self.clock.monotonic()
        self.last_error = self._closed_by_peer
        self.endpoints = (conn.local, conn.remote)
        self._on_up()
        conn.start()

    def _data(self, data: bytes) -> None:
        if self._closed_by_peer is not None:
            self._closed_by_peer = self.last_error = None
        self._on_data(data)

    def _closed_by_outstation(self) -> str:
        """What ``last_error`` says of a connection the outstation closed; logged at most
        once every CLOSED_LOG_EVERY seconds, with how many times it happened unlogged."""
        now = self.clock.monotonic()
        said = f"closed by the outstation {now - self._opened_at:.1f} s after connecting"
        self._closed_by_peer = said
        if self._closed_logged_at is not None and now - self._closed_logged_at < CLOSED_LOG_EVERY:
            self._closed_unlogged += 1
            return said
        more = (
            f" ({self._closed_unlogged} more times since the last report)"
            if self._closed_unlogged
            else ""
        )
        log.warning("outstation %s: connection %s%s", self.name, said, more)
        self._closed_logged_at = now
        self._closed_unlogged = 0
        return said

    def lost(self, conn: Link, reason: str | None) -> None:
        """The connection ``conn`` ended (or is being closed by us)."""
        if self.wire.connection is not conn:
            return
        if reason is None and not self._closing:
            reason = self._closed_by_outstation()
        self.wire.detach()
        self.up.clear()
        self.state = "disconnected"
        if reason:
            self.last_error = reason
        self._on_down()
        reconnecting = self._reconnector is not None and not self._reconnector.done()
        if not self._closing and self.settings.reconnect is not None and not reconnecting:
            self._reconnector = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        interval = self.settings.reconnect
        assert interval is not None
        while not self.connected and not self._closing:
            await asyncio.sleep(interval)
            if self._closing:
                return
            try:
                await self.connect()
            except ConnectionFailed as exc:
                log.debug("reconnecting %s: %s", self.name, exc)

    async def disconnect(self) -> None:
        """Close the connection; no reconnection follows."""
        self._closing = True
        reconnector, self._reconnector = self._reconnector, None
        if reconnector is not None and reconnector is not asyncio.current_task():
            reconnector.cancel()
        conn = self.wire.connection
        if conn is None:
            self.state = "disconnected"
            return
        self.lost(conn, None)
        conn.close()
        await conn.wait_closed()

    async def close(self) -> None:
        """Disconnect for good: no connect is accepted afterwards."""
        self._closed = True
        await self.disconnect()
