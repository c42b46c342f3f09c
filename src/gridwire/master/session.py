"""One outstation: its connection, its association, its exchanges and its tasks.

The :class:`Session` is the asyncio side of an outstation the master looks after. It
implements :class:`gridwire.master.session_protocol.SessionLike`, so the operations written
against that protocol (controls, time synchronization) run on it unchanged.

- Octets received go through the :class:`Association` straight from the connection's receive
  path: every frame goes to the trace, the bus and the capture; a response fragment that
  asks for confirmation is confirmed *before* its objects are decoded, so the outstation can
  build its next fragment while this one is read.
- One request is in flight at a time (an asyncio lock, taken in request order). The pending
  exchange matches fragments by sequence number and ends as ``complete`` (the final
  fragment), ``timeout`` (nothing more within ``response_timeout`` of the last thing that
  arrived), ``sent`` (no response is asked for), or ``abandoned`` (the connection ended, or
  the caller was cancelled, as a schedule set again does).
- Every octet the master writes leaves through :meth:`Session._send`, the one place where the
  wire gate is checked and the deviations hook applied.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Literal

from gridwire.capture import CaptureError, Direction, Endpoint, RotatingPcapWriter, TcpFlow
from gridwire.dnp3.app.fragments import Response, parse_response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.dnp3.link import LinkFrame
from gridwire.errors import ConnectionFailed, GridwireError
from gridwire.master import gate
from gridwire.master.association import Association, Fragment
from gridwire.master.bus import EventBus
from gridwire.master.connection import Connection, open_connection
from gridwire.master.deviations import Deviations
from gridwire.master.hold import Hold
from gridwire.master.records import Outcome, OutstationStatus, exchange_record
from gridwire.master.scans import (
    class_read,
    clear_restart_body,
    integrity_body,
    scan_body,
    unsolicited_body,
)
from gridwire.master.session_protocol import Body, Clock, ExchangeResult
from gridwire.master.settings import OutstationSettings, TaskSettings
from gridwire.master.store import EventLog, NameOf, ValueStore, name_objects, no_names
from gridwire.master.tasks import Schedules, TaskRunner, classes_indicated
from gridwire.master.timesync import synchronize_time
from gridwire.master.trace import FrameLog

log = logging.getLogger(__name__)

State = Literal["connecting", "connected", "disconnected"]

CONNECT_TIMEOUT = 5.0
CONNECT_RETRY = 1.0

# The task whose requests are being made: set by the task runner's worker (its own asyncio
# task, so its own context), read by exchange() to tag every request an operation makes.
_current_task: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "gridwire_master_task", default=None
)


@dataclass(slots=True, eq=False)
class _Pending:
    """The exchange in flight: what arrived for it and when it ends."""

    seq: int
    future: asyncio.Future[Outcome]
    deadline: float
    expected: int = -1
    fragments: int = 0
    responses: list[Response] = field(default_factory=list)
    received_ms: float | None = None
    last_received: float | None = None
    timer: asyncio.TimerHandle | None = None

    def finish(self, outcome: Outcome) -> None:
        if not self.future.done():
            self.future.set_result(outcome)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class Session:
    """One outstation the master looks after."""

    def __init__(
        self,
        settings: OutstationSettings,
        *,
        allow_control: bool,
        clock: Clock,
        bus: EventBus,
        trace_limit: int = 10_000,
        event_limit: int = 10_000,
        capture: RotatingPcapWriter | None = None,
        name_of: NameOf | None = None,
    ) -> None:
        self.name = settings.name
        self.settings = settings
        self.allow_control = allow_control
        self.clock = clock
        self._bus = bus
        self.association = Association(
            settings.outstation_address,
            settings.master_address,
            max_request=settings.max_request_fragment,
        )
        self.frames = FrameLog(trace_limit)
        self._named = name_of is not None
        self.store = ValueStore(name_of or no_names)
        self.events = EventLog(event_limit)
        self.deviations = Deviations(settings.name)
        self.runner = TaskRunner(self._perform, settings.effective_tasks(allow_control), self._free)
        self.schedules = Schedules(self._scheduled, clock.monotonic, self._scan_ready)
        self.indications: IIN | None = None
        self.state: State = "disconnected"
        self.last_error: str | None = None
        self._capture = capture
        self._flow: TcpFlow | None = None
        # (master, outstation) ends of the latest connection, for captures.
        self.endpoints: tuple[Endpoint, Endpoint] | None = None
        self._connection: Connection | None = None
        self._lock = asyncio.Lock()
        self.hold = Hold()  # while held, only the holder's requests go (Master.hold)
        self._connect_lock = asyncio.Lock()
        self._pending: _Pending | None = None
        self._reconnector: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = False
        self._changed = asyncio.Event()
        self._up = asyncio.Event()  # set while connected

    # --- state ----------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connection is not None

    @property
    def connection(self) -> Connection | None:
        return self._connection

    def status(self) -> OutstationStatus:
        s = self.settings
        return OutstationStatus(
            name=self.name,
            host=s.host,
            port=s.port,
            state=self.state,
            connected=self.connected,
            tasks=self.runner.tasks.model_dump(),
            tasks_due=self.runner.due,
            reconnect=s.reconnect,
            read_retries=s.read_retries,
            manual=s.manual,
            confirm=s.confirms,
            tls=s.tls is not None,
            outstation_address=s.outstation_address,
            master_address=s.master_address,
            profile=s.profile,
            indications=self.indications.names if self.indications is not None else [],
            last_error=self.last_error,
            schedules=self.schedules.as_dict(),
            deviations=self.deviations.on,
        )

    def _scan_ready(self) -> Awaitable[object] | None:
        """None when a scheduled scan can be made, else what ends once it can (connected)."""
        return None if self.connected else self._up.wait()

    def changed(self) -> Awaitable[object]:
        """Finishes when the next response or unsolicited response has been taken in."""
        return self._changed.wait()

    def _pulse(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def set_tasks(self, changes: dict[str, Any]) -> TaskSettings:
        tasks = self.runner.tasks.merged(changes, self.allow_control)
        self.runner.set(tasks)
        return tasks

    async def idle(self) -> None:
        await self.runner.idle()

    # --- connection -----------------------------------------------------------------------

    async def connect(self, wait: float | None = None) -> None:
        """Connect unless connected; with ``wait``, try once a second for that many seconds.
        ConnectionFailed with the last reason when no attempt succeeded."""
        if self._closed:
            raise ConnectionFailed(f"outstation {self.name} was removed")
        self._closing = False
        async with self._connect_lock:
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
        holder: list[Connection] = []

        def lost(reason: str | None) -> None:
            if holder:
                self._lost(holder[0], reason)

        try:
            conn = await open_connection(
                s.host,
                s.port,
                tls=s.tls,
                on_data=self._on_data,
                on_lost=lost,
                within=min(CONNECT_TIMEOUT, max(s.response_timeout, 1.0)),
            )
        except ConnectionFailed:
            self.state = "disconnected"
            raise
        holder.append(conn)
        if self._closing or self._closed:
            conn.close()
            self.state = "disconnected"
            raise ConnectionFailed(f"outstation {self.name} was disconnected while connecting")
        self.association.reset()
        self._connection = conn
        self._up.set()
        self.state = "connected"
        self.last_error = None
        self.endpoints = (conn.local, conn.remote)
        self._flow = self._new_flow(conn)
        self._bus.publish("connection", {"outstation": self.name, "connected": True})
        self.runner.connected()
        conn.start()

    def _new_flow(self, conn: Connection) -> TcpFlow | None:
        if self._capture is None:
            return None
        try:
            return TcpFlow(conn.local, conn.remote)
        except CaptureError as exc:
            log.warning("capture of %s not possible: %s", self.name, exc)
            return None

    def _lost(self, conn: Connection, reason: str | None) -> None:
        """The connection ``conn`` ended (or is being closed by us)."""
        if self._connection is not conn:
            return
        self._connection = None
        self._up.clear()
        self.state = "disconnected"
        if reason:
            self.last_error = reason
        pending = self._pending
        if pending is not None:
            pending.finish("abandoned")
        self.runner.disconnected()
        self._bus.publish("connection", {"outstation": self.name, "connected": False})
        self._pulse()
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
        conn = self._connection
        if conn is None:
            self.state = "disconnected"
            return
        self._lost(conn, None)
        conn.close()
        await conn.wait_closed()

    async def close(self) -> None:
        """Disconnect and stop everything (the outstation is removed or the master closes)."""
        self._closed = True
        self.schedules.close()
        self.runner.close()
        await self.disconnect()

    # --- sending --------------------------------------------------------------------------

    def _send(self, kind: str, function: FunctionCode | None, frames: list[bytes]) -> float:
        """Write ``frames`` (the one place octets leave): the gate for a request, then the
        deviations hook. Returns the wall-clock time (ms) they were handed to the connection.
        Confirmations and link replies answer the outstation and command nothing."""
        if kind == "request" and function is not None:
            gate.check(function, self.allow_control)
        conn = self._connection
        if conn is None:
            raise ConnectionFailed(f"outstation {self.name} is not connected")
        if self.deviations:
            items = self.deviations.outgoing(kind, function, frames, self.clock.monotonic())
            self._write_items(conn, items)
        else:
            for octets in frames:
                self._write(conn, octets)
        return self.clock.wall_ms()

    def _write_items(self, conn: Connection, items: list[tuple[float, bytes]]) -> None:
        """Write (delay, octets) in order: those due now at once, the rest by a timer that
        holds up nothing else."""
        for position, (delay, octets) in enumerate(items):
            if delay > 0:
                rest = [(d - delay, o) for d, o in items[position:]]
                rest[0] = (0.0, rest[0][1])
                asyncio.get_running_loop().call_later(delay, self._write_later, conn, rest)
                return
            self._write(conn, octets)

    def _write_later(self, conn: Connection, items: list[tuple[float, bytes]]) -> None:
        if conn is self._connection:
            self._write_items(conn, items)

    def _write(self, conn: Connection, octets: bytes) -> None:
        conn.write(octets)
        now_ms = self.clock.wall_ms()
        frame_id = self.frames.log_sent(octets, now_ms)
        self._log_frame(frame_id, Direction.TO_OUTSTATION, octets, now_ms)

    def _log_frame(
        self, frame_id: int, direction: Direction, octets: bytes, time_ms: float
    ) -> None:
        """Publish a frame just logged (its record is built only when someone listens) and
        write it to the capture."""
        if self._bus.subscribers:
            record = self.frames.record(frame_id)
            self._bus.publish("frame", {"outstation": self.name, "frame": record})
        if self._capture is not None and self._flow is not None:
            try:
                self._capture.write(self._flow, direction, octets, time_ms / 1000.0)
            except (CaptureError, OSError) as exc:
                log.warning("capture write failed, capture of %s stops: %s", self.name, exc)
                self._flow = None

    # --- receiving ------------------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        received = self.association.receive(data)
        now_ms = self.clock.wall_ms()
        log_received = self.frames.log_received
        for item in received.frames:
            raw = item.raw if isinstance(item, LinkFrame) else item.octets
            self._log_frame(log_received(item, now_ms), Direction.TO_MASTER, raw, now_ms)
        for reason in received.discarded:
            log.debug("%s: discarded %s", self.name, reason)
        if received.replies and self._connection is not None:
            self._send("link", None, received.replies)
        for fragment in received.fragments:
            try:
                if fragment.unsolicited:
                    self._unsolicited(fragment, now_ms)
                else:
                    self._solicited(fragment, now_ms)
            except GridwireError as exc:
                log.warning("%s: fragment not taken in: %s", self.name, exc)

    def _confirm(self, fragment: Fragment) -> None:
        if fragment.con and self.settings.confirms and self._connection is not None:
            out = self.association.confirm(fragment.seq, unsolicited=fragment.unsolicited)
            kind = "unsolicited_confirm" if fragment.unsolicited else "confirm"
            self._send(kind, FunctionCode.CONFIRM, out.frames)

    def _take_in(self, fragment: Fragment) -> Response:
        self._confirm(fragment)
        response = parse_response(fragment.raw)
        if response.objects:
            if self._named:
                name_objects(response.objects, self.store.name_of)
            self._keep(response, self.clock.monotonic())
        self.indications = fragment.iin
        return response

    def _keep(self, response: Response, now: float) -> None:
        """The response's objects into the value store and the event log, header by header.
        A header's objects all come from one variation, so the first says whether they are
        points and events; those of a start-stop header are the points start, start + 1...
        (as the decoder builds them), stored as one run."""
        store = self.store
        for header in response.headers:
            objects = header.objects
            if not objects:
                continue
            first = objects[0]
            if first.event:
                self.events.add(objects)
            if first.type is None:
                continue
            if header.start is not None:
                store.update_run(first.type, header.start, objects, now)
            else:
                store.update(objects, now)

    def _solicited(self, fragment: Fragment, now_ms: float) -> None:
        pending = self._pending
        if pending is None or pending.future.done():
            log.debug("%s: response seq %d with no request waiting", self.name, fragment.seq)
            return
        expected = pending.seq if pending.fragments == 0 else pending.expected
        if fragment.seq != expected:
            log.debug("%s: response seq %d, expected %d", self.name, fragment.seq, expected)
            return
        response = self._take_in(fragment)
        pending.responses.append(response)
        pending.fragments += 1
        pending.expected = (fragment.seq + 1) & 0x0F
        if pending.received_ms is None:
            pending.received_ms = now_ms
        pending.last_received = self.clock.monotonic()
        pending.deadline = asyncio.get_running_loop().time() + self.settings.response_timeout
        if fragment.fin:
            pending.finish("complete")
        self._pulse()

    def _unsolicited(self, fragment: Fragment, now_ms: float) -> None:
        response = self._take_in(fragment)
        self._bus.publish(
            "unsolicited",
            {
                "outstation": self.name,
                "indications": fragment.iin.names,
                "objects": response.objects,
            },
        )
        self.runner.indicated(fragment.iin)
        self._pulse()

    # --- exchanges ------------------------------------------------------------------------

    async def exchange(
        self,
        function: FunctionCode,
        body: Body = b"",
        *,
        task: str | None = None,
        broadcast: int | None = None,
    ) -> ExchangeResult:
        """Send one request and wait for its end (see :class:`SessionLike`). A request made
        while a task runs carries the task's name unless ``task`` is given. A callable
        ``body`` is built once this request's turn has come, with no wait before it leaves."""
        if task is None:
            task = _current_task.get()
        gate.check(function, self.allow_control)
        if not self.connected:
            raise ConnectionFailed(f"outstation {self.name} is not connected")
        async with self.hold.turn(self._lock, own=task is None):
            if not self.connected:
                raise ConnectionFailed(f"outstation {self.name} is not connected")
            return await self._exchange(function, body, task, broadcast)

    async def _exchange(
        self, function: FunctionCode, body: Body, task: str | None, broadcast: int | None
    ) -> ExchangeResult:
        loop = asyncio.get_running_loop()
        if callable(body):
            body = body()  # nothing awaits between this and the send below
        out = self.association.request(function, body, destination=broadcast)
        started = self.clock.monotonic()
        answered = broadcast is None and function.expects_response
        timeout = self.settings.response_timeout
        pending: _Pending | None = None
        if answered:
            pending = _Pending(out.seq, loop.create_future(), loop.time() + timeout)
            self._pending = pending
        retries = 0
        outcome: Outcome = "sent"
        try:
            sent_ms = self._send("request", function, out.frames)
            while pending is not None:
                pending.deadline = loop.time() + timeout
                pending.timer = loop.call_at(pending.deadline, self._check_timeout, pending)
                outcome = await pending.future
                if (
                    outcome == "timeout"
                    and function == FunctionCode.READ
                    and pending.fragments == 0
                    and retries < self.settings.read_retries
                    and self.connected
                ):
                    retries += 1
                    pending.future = loop.create_future()
                    again = self.association.request(function, body, seq=out.seq)
                    sent_ms = self._send("request", function, again.frames)
                    continue
                break
        except asyncio.CancelledError:
            if pending is not None:
                pending.finish("abandoned")
                self._finish(
                    function,
                    task,
                    out.seq,
                    "abandoned",
                    out.fragment,
                    pending,
                    started,
                    retries,
                    broadcast,
                )
            raise
        finally:
            if self._pending is pending:
                self._pending = None
        return self._finish(
            function,
            task,
            out.seq,
            outcome,
            out.fragment,
            pending,
            started,
            retries,
            broadcast,
            sent_ms,
        )

    def _check_timeout(self, pending: _Pending) -> None:
        loop = asyncio.get_running_loop()
        if pending.future.done():
            return
        if loop.time() < pending.deadline:
            pending.timer = loop.call_at(pending.deadline, self._check_timeout, pending)
            return
        pending.timer = None
        pending.finish("timeout")

    def _finish(
        self,
        function: FunctionCode,
        task: str | None,
        seq: int,
        outcome: Outcome,
        fragment: bytes,
        pending: _Pending | None,
        started: float,
        retries: int,
        broadcast: int | None,
        sent_ms: float | None = None,
    ) -> ExchangeResult:
        responses = pending.responses if pending is not None else []
        last = pending.last_received if pending is not None else None
        ended = last if outcome == "complete" and last is not None else self.clock.monotonic()
        record = exchange_record(
            function.name,
            task,
            seq,
            outcome,
            fragment,
            responses,
            (ended - started) * 1000.0,
            retries=retries,
            broadcast=broadcast,
        )
        self._bus.publish("exchange", {"outstation": self.name, "exchange": record})
        if responses:
            self.runner.indicated(responses[-1].iin, task=task, objects=record.object_count)
        received_ms = pending.received_ms if pending is not None else None
        return ExchangeResult(record, responses, sent_ms, received_ms)

    # --- what the master does by itself ---------------------------------------------------

    async def _free(self) -> None:
        """Return once no request is in flight (the task runner picks its next task then)."""
        async with self._lock:
            pass

    async def _perform(self, name: str) -> None:
        """Run the task ``name`` (called by the task runner, in its own asyncio task)."""
        _current_task.set(name)
        if name in ("startup", "integrity_on_overflow"):
            await self.exchange(FunctionCode.READ, integrity_body(), task=name)
        elif name == "clear_restart":
            await self.exchange(FunctionCode.WRITE, clear_restart_body(), task=name)
        elif name == "write_time":
            await synchronize_time(self, self.settings.time_procedure)
        elif name == "enable_unsolicited":
            classes = self.runner.tasks.enable_unsolicited
            await self.exchange(
                FunctionCode.ENABLE_UNSOLICITED, unsolicited_body(classes), task=name
            )
        elif name == "events_when_indicated":
            classes = classes_indicated(self.indications or IIN(0))
            if classes:
                await self.exchange(FunctionCode.READ, class_read(classes), task=name)

    async def _scheduled(self, kind: str) -> None:
        await self.exchange(FunctionCode.READ, scan_body(kind), task="repeat")
