"""A channel shared by several outstations, each by its link address (multi-drop).

The :class:`Channel` opens its physical link when the first outstation on it connects and
closes it when the last one lets go. Each outstation sees the channel through its
:class:`Drop`, which behaves as a connection of its own: octets written go onto the shared
link; the frames whose source is its link address come to it (:mod:`gridwire.channels.demux`);
when the link is lost every drop hears it. A half-duplex channel (serial, by default) has one
``lock`` its outstations take for each request, so one request is on the line at a time;
elsewhere each outstation keeps its own (DESIGN D186).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gridwire.capture import Endpoint, TcpFlow
from gridwire.channels.demux import Demux
from gridwire.channels.links import (
    OnData,
    OnLost,
    PhysicalLink,
    open_serial,
    open_tcp,
    open_udp,
)
from gridwire.channels.settings import (
    ChannelSettings,
    SerialChannel,
    TcpChannel,
    TlsChannel,
    UdpChannel,
)
from gridwire.errors import BadParameter, ConnectionFailed

log = logging.getLogger("gridwire.channels")
UNROUTED_KEPT = 200


@dataclass(slots=True)
class UnroutedFrame:
    """A frame the channel received for none of its outstations (its own trace)."""

    time_ms: float
    source: int
    destination: int
    hex: str


@dataclass(slots=True)
class ChannelStatus:
    """How a channel stands: its kind and where it goes, whether its link is open, the
    outstations on it (by link address), and what arrived for none of them."""

    name: str
    kind: str
    where: str
    half_duplex: bool
    open: bool
    outstations: dict[int, str]
    attached: list[int]
    last_error: str | None
    counts: dict[str, Any] = field(default_factory=dict)


class Drop:
    """One outstation's connection through a shared channel."""

    def __init__(self, channel: Channel, address: int, on_data: OnData, on_lost: OnLost) -> None:
        self.channel = channel
        self.address = address
        self._on_data = on_data
        self._on_lost = on_lost
        self._held: list[bytes] | None = []
        self._link = channel.link
        self.closed = False

    @property
    def local(self) -> Endpoint:
        return self._link.local if self._link is not None else ("127.0.0.1", 0)

    @property
    def remote(self) -> Endpoint:
        return self._link.remote if self._link is not None else ("127.0.0.1", 0)

    @property
    def is_open(self) -> bool:
        return not self.closed and self._link is not None and self._link.is_open

    def start(self) -> None:
        """Deliver what arrived so far, and from now on each frame as it arrives."""
        held, self._held = self._held, None
        if held:
            self._on_data(b"".join(held))

    def deliver(self, frame: bytes) -> None:
        if self._held is not None:
            self._held.append(frame)
        else:
            self._on_data(frame)

    def write(self, data: bytes) -> None:
        if self.is_open and self._link is not None:
            self.channel.frames_out += 1
            self._link.write(data)

    def capture_flow(self) -> TcpFlow:
        if self._link is None:
            raise ConnectionFailed("the channel is closed")
        return self._link.capture_flow()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.channel.detach(self)

    async def wait_closed(self, within: float = 5.0) -> None:
        link = self._link
        if link is not None and not link.is_open:
            await link.wait_closed(within)

    def lost(self, reason: str | None) -> None:
        self.closed = True
        self._on_lost(reason)


class Channel:
    """One channel and the outstations on it."""

    def __init__(
        self, settings: ChannelSettings, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.settings = settings
        self.name = settings.name
        self.monotonic = monotonic
        inter = settings.inter_character_timeout if isinstance(settings, SerialChannel) else None
        self.demux = Demux(inter)
        self.lock: asyncio.Lock | None = asyncio.Lock() if settings.one_request else None
        self.link: PhysicalLink | None = None
        self.last_error: str | None = None
        self.frames_out = 0
        self.frames_in = 0
        self._names: dict[int, str] = {}  # outstation address -> name, of every one added
        self._drops: dict[int, Drop] = {}
        self._opening = asyncio.Lock()
        # The channel's own trace: frames that went to no outstation, the latest kept.
        self.unrouted: deque[UnroutedFrame] = deque(maxlen=UNROUTED_KEPT)

    # --- outstations on the channel ------------------------------------------------------

    def claim(self, address: int, name: str) -> None:
        """``name`` is an outstation on this channel at link ``address``; RequestError when
        another one has that address here (frames could not be told apart)."""
        other = self._names.get(address)
        if other is not None and other != name:
            raise BadParameter(
                f"outstation {other!r} has link address {address} on channel {self.name!r}; "
                "each outstation on a channel needs an address of its own"
            )
        self._names[address] = name

    def release(self, address: int) -> None:
        self._names.pop(address, None)

    @property
    def in_use(self) -> bool:
        return bool(self._names)

    async def attach(self, address: int, on_data: OnData, on_lost: OnLost, within: float) -> Drop:
        """The outstation at ``address`` connects: the link is opened if it is not open."""
        async with self._opening:
            if self.link is None or not self.link.is_open:
                try:
                    self.link = await self._open(within)
                except ConnectionFailed as exc:
                    self.last_error = str(exc)
                    raise
                self.demux.reset()
                self.last_error = None
            drop = Drop(self, address, on_data, on_lost)
            old = self._drops.get(address)
            self._drops[address] = drop
            if old is not None:
                old.lost(None)
            return drop

    async def _open(self, within: float) -> PhysicalLink:
        s = self.settings
        opened: list[PhysicalLink] = []

        def lost(reason: str | None) -> None:  # this link's end, not a later one's
            if opened and opened[0] is self.link:
                self._lost(reason)

        link = await self._open_link(s, lost, within)
        opened.append(link)
        return link

    async def _open_link(self, s: ChannelSettings, lost: OnLost, within: float) -> PhysicalLink:
        received = self._received
        if isinstance(s, TlsChannel):
            return await open_tcp(s.host, s.port, s.tls, received, lost, within)
        if isinstance(s, TcpChannel):
            return await open_tcp(s.host, s.port, None, received, lost, within)
        if isinstance(s, SerialChannel):
            return await open_serial(s, received, lost)
        assert isinstance(s, UdpChannel)
        local, remote = (s.local_host, s.local_port), (s.remote_host, s.remote_port)
        return await open_udp(local, remote, s.max_datagram, received, lost)

    def detach(self, drop: Drop) -> None:
        """The outstation of ``drop`` lets go; the last one out closes the link."""
        if self._drops.get(drop.address) is drop:
            del self._drops[drop.address]
        if not self._drops and self.link is not None:
            self.link.close()

    # --- the link's callbacks ------------------------------------------------------------

    def _received(self, data: bytes) -> None:
        routed = self.demux.feed(data, self.monotonic(), self._drops, self._names)
        drops = self._drops
        for address, raw in routed.frames:
            self.frames_in += 1
            drops[address].deliver(raw)
        for frame in routed.unknown:
            self.unrouted.append(
                UnroutedFrame(
                    time.time() * 1000.0, frame.source, frame.destination, frame.raw.hex()
                )
            )
        if routed.log_unknown:
            frame = routed.unknown[0]
            log.warning(
                "channel %s: dropped a frame from link address %d to %d, which no outstation "
                "on the channel has (%d so far; logged once a minute)",
                self.name,
                frame.source,
                frame.destination,
                self.demux.counts.unknown_frames,
            )

    def _lost(self, reason: str | None) -> None:
        self.link = None
        if reason:
            self.last_error = reason
        drops, self._drops = self._drops, {}
        for drop in drops.values():
            drop.lost(reason)

    async def close(self) -> None:
        link, self.link = self.link, None
        if link is not None:
            link.close()
            await link.wait_closed()

    def trace(self) -> list[UnroutedFrame]:
        """The latest frames from addresses no outstation on the channel has."""
        return list(self.unrouted)

    def status(self) -> ChannelStatus:
        s = self.settings
        counts = self.demux.counts
        return ChannelStatus(
            name=self.name,
            kind=s.kind,
            where=s.describe(),
            half_duplex=s.one_request,
            open=self.link is not None and self.link.is_open,
            outstations=dict(sorted(self._names.items())),
            attached=sorted(self._drops),
            last_error=self.last_error,
            counts={
                "frames_in": self.frames_in,
                "frames_out": self.frames_out,
                "unknown_frames": counts.unknown_frames,
                "unattached_frames": counts.unattached_frames,
                "last_unknown_address": counts.last_unknown_address,
                "echoed_frames": counts.echoed_frames,
                "dropped_octets": counts.dropped_octets,
                "partial_frames": counts.partial_frames,
            },
        )
