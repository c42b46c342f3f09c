"""The session's wire: where its octets meet the connection, and where every frame is kept.

:meth:`Wire.send` is the one place octets leave the master for an outstation: a request
passes the wire gate (:mod:`gridwire.master.gate`) first, then whatever leaves goes through
the deviations hook (:class:`gridwire.master.deviations.Deviations`), which may hold some of
it back for a while (a late confirmation) without holding up anything else. Every frame
written, and every frame received (:meth:`Wire.received`), is logged in the trace, published
as a ``frame`` update when someone listens, and written to the capture.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from gridwire.capture import CaptureError, Direction, RotatingPcapWriter, TcpFlow
from gridwire.channels.base import Link
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.link import Dropped, LinkFrame
from gridwire.errors import ConnectionFailed
from gridwire.master import gate
from gridwire.master.bus import EventBus
from gridwire.master.deviations import Deviations
from gridwire.master.trace import FrameLog
from gridwire.process.clock import Clock, wall_ms

log = logging.getLogger("gridwire.master.session")


class Wire:
    """The connection of one outstation (``name``) as the session writes to it and records
    it; ``connection`` is None while there is none."""

    __slots__ = (
        "_arrived",
        "_bus",
        "_capture",
        "_flow",
        "allow_control",
        "clock",
        "connection",
        "deviations",
        "fence",
        "frames",
        "name",
        "read_handles",
    )

    def __init__(
        self,
        name: str,
        *,
        allow_control: bool,
        clock: Clock,
        bus: EventBus,
        frames: FrameLog,
        deviations: Deviations,
        capture: RotatingPcapWriter | None,
    ) -> None:
        self.name = name
        self.allow_control = allow_control
        self.clock = clock
        self.frames = frames
        self.deviations = deviations
        self.connection: Link | None = None
        self._bus = bus
        self._capture = capture
        self._flow: TcpFlow | None = None
        # Frames received and not logged yet, with their time (see arrived()).
        self._arrived: tuple[list[LinkFrame | Dropped], float] | None = None
        # Called (after the gate) for every request that commands, as it is handed over and
        # again as it is written; what it raises stops the request unsent. A cluster
        # worker's lease check goes here (Master.command_fence).
        self.fence: Callable[[FunctionCode], None] | None = None
        self.read_handles: set[int] = set()  # file handles opened for reading (D193)

    def attach(self, conn: Link) -> None:
        """``conn`` is the connection from now on (a capture gets a flow of its own)."""
        self.connection = conn
        self._flow = None
        if self._capture is not None:
            try:
                self._flow = conn.capture_flow()
            except CaptureError as exc:
                log.warning("capture of %s not possible: %s", self.name, exc)

    def detach(self) -> None:
        """There is no connection any more (what a deviation held back is not written)."""
        self.connection = None

    def admit(self, function: FunctionCode, body: bytes | None = None) -> None:
        """The wire's gate: NotAllowed (:func:`gridwire.master.gate.refusal`) for a request
        that commands when control is not allowed. The session asks it as a request is handed
        over, before it takes a turn or a sequence number, and :meth:`send` asks it again for
        every request fragment as the last guard. ``body`` (None: not known yet) lets the
        gate judge file requests by their objects (D193)."""
        gate.check(function, self.allow_control, body, self.read_handles)
        if self.fence is not None and gate.commands(function, body, self.read_handles):
            self.fence(function)

    def send(
        self,
        kind: str,
        function: FunctionCode | None,
        frames: list[bytes],
        body: bytes | None = None,
    ) -> float:
        """Write ``frames`` of ``kind`` (``request``, ``confirm``, ``unsolicited_confirm``,
        ``link``): the gate for a request, then the deviations hook. Returns the wall-clock
        time (ms) they were handed to the connection. Confirmations and link replies answer
        the outstation and command nothing. ConnectionFailed when there is no connection."""
        if kind == "request" and function is not None:
            self.admit(function, body)
        conn = self.connection
        if conn is None:
            raise ConnectionFailed(f"outstation {self.name} is not connected")
        if self.deviations:
            items = self.deviations.outgoing(kind, function, frames, self.clock.monotonic())
            self._write_items(conn, items)
        else:
            for octets in frames:
                self._write(conn, octets, framed=True)
        return wall_ms(self.clock)

    def arrived(self, frames: list[LinkFrame | Dropped], now_ms: float) -> None:
        """Frames just read, logged as :meth:`received` logs them but at the next write
        (after its octets are handed over, before it is logged) or at :meth:`settle`,
        whichever comes first: the CONFIRM that answers them leaves without waiting for
        their logging, and the trace, the ``frame`` updates and the capture still list them
        before it, with the time they arrived."""
        if frames:
            if self._arrived is not None:
                self.settle()
            self._arrived = (frames, now_ms)

    def settle(self) -> None:
        """Log the frames :meth:`arrived` left unlogged, if any."""
        arrived = self._arrived
        if arrived is not None:
            self._arrived = None
            self.received(*arrived)

    def received(self, frames: list[LinkFrame | Dropped], now_ms: float) -> None:
        """Frames (and runs of dropped octets) just read from the connection, in order."""
        log_received = self.frames.log_received
        if not self._bus.subscribers and self._flow is None:
            for item in frames:  # nobody listens and no capture: only the trace keeps them
                log_received(item, now_ms)
            return
        for item in frames:
            raw = item.raw if isinstance(item, LinkFrame) else item.octets
            self._logged(log_received(item, now_ms), Direction.TO_MASTER, raw, now_ms)

    def _write_items(self, conn: Link, items: list[tuple[float, bytes]]) -> None:
        """Write (delay, octets) in order: those due now at once, the rest by a timer that
        holds up nothing else."""
        for position, (delay, octets) in enumerate(items):
            if delay > 0:
                rest = [(d - delay, o) for d, o in items[position:]]
                rest[0] = (0.0, rest[0][1])
                asyncio.get_running_loop().call_later(delay, self._write_later, conn, rest)
                return
            self._write(conn, octets)

    def _write_later(self, conn: Link, items: list[tuple[float, bytes]]) -> None:
        if conn is self.connection:
            self._write_items(conn, items)

    def _write(self, conn: Link, octets: bytes, framed: bool = False) -> None:
        """Write and log ``octets``; ``framed`` when they are one frame as the link layer
        made it (no deviation), which the log then need not read again."""
        conn.write(octets)
        if self._arrived is not None:
            self.settle()
        now_ms = wall_ms(self.clock)
        frame_id = self.frames.log_sent(octets, now_ms, framed=framed)
        self._logged(frame_id, Direction.TO_OUTSTATION, octets, now_ms)

    def _logged(self, frame_id: int, direction: Direction, octets: bytes, time_ms: float) -> None:
        """Publish a frame just logged (its record is built only when someone listens) and
        write it to the capture."""
        if self._bus.subscribers and frame_id >= self.frames.first_id:
            # (a frame larger than the whole trace budget is not kept, nor published)
            record = self.frames.record(frame_id)
            self._bus.publish("frame", {"outstation": self.name, "frame": record})
        if self._capture is not None and self._flow is not None:
            try:
                self._capture.write(self._flow, direction, octets, time_ms / 1000.0)
            except (CaptureError, OSError) as exc:
                log.warning("capture write failed, capture of %s stops: %s", self.name, exc)
                self._flow = None
