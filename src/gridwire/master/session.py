"""One outstation: its connection, its association, its exchanges and its tasks.

The :class:`Session` is the asyncio side of an outstation the master looks after. It
implements :class:`gridwire.master.session_protocol.SessionLike`, so the operations written
against that protocol (controls, time synchronization) run on it unchanged. The connection's
life (connect, reconnect, disconnect) is its :class:`Connector`'s.

- Octets received go through the :class:`Association` straight from the connection's receive
  path: every frame goes to the trace, the bus and the capture (:class:`Wire`); a response
  fragment that asks for confirmation is confirmed *before* its objects are decoded, so the
  outstation can build its next fragment while this one is read.
- One request is in flight at a time (an asyncio lock, taken in request order, through the
  outstation's :class:`Hold`). What its answer means is decided by the sans-IO rules of
  :mod:`gridwire.master.exchange` (matching by sequence number, FIR/FIN/CON, retries, the
  deadline); the session sends, arms one timer at the rules' deadline, and takes in what
  they accept. An exchange ends ``complete``, ``timeout``, ``sent`` (no response is asked
  for) or ``abandoned`` (the connection ended, or the caller was cancelled, as a schedule
  set again does).
- The automatic tasks are run by a :class:`TaskRunner`; what each asks is in its own module
  (:mod:`gridwire.master.tasks`).
- Every octet the master writes leaves through :meth:`Wire.send`, the one place where the
  deviations hook is applied; the wire's gate (:meth:`Wire.admit`) is asked as a request is
  handed over and again as it leaves.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from gridwire.capture import Endpoint, RotatingPcapWriter
from gridwire.channels.base import Link
from gridwire.channels.channel import Channel
from gridwire.dnp3.app.fragments import Response, parse_response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN
from gridwire.errors import ConnectionFailed, GridwireError
from gridwire.master.association import Association, Fragment, Received
from gridwire.master.bus import EventBus
from gridwire.master.connector import Connector, State
from gridwire.master.deviations import Deviations
from gridwire.master.exchange import ExchangeRules, Verdict
from gridwire.master.gate import CONTROL_FUNCTIONS
from gridwire.master.hold import Hold
from gridwire.master.in_flight import InFlight, taken_observer
from gridwire.master.records import Outcome, OutstationStatus, exchange_record
from gridwire.master.scans import scan_body
from gridwire.master.schedules import Schedules
from gridwire.master.session_protocol import Body, ExchangeResult
from gridwire.master.settings import OutstationSettings, TaskSettings
from gridwire.master.store import EventLog, NameOf, ValueStore, keep, name_objects, no_names
from gridwire.master.tasks import BY_NAME, TaskContext, TaskRunner
from gridwire.master.trace import FrameLog
from gridwire.master.trace_budget import TraceBudget
from gridwire.master.wire import Wire
from gridwire.process.clock import Clock, wall_ms
from gridwire.process.timers import timers

log = logging.getLogger(__name__)

# The task whose requests are being made: set by the task runner's worker (its own asyncio
# task, so its own context), read by exchange() to tag every request an operation makes.
CommandHook = Callable[[FunctionCode, bytes], Awaitable[None]]
"""Awaited before a control request (SELECT, OPERATE, DIRECT_OPERATE, DIRECT_OPERATE_NR)
leaves, with its function and object octets: whoever installed it (an evaluation's restore
journal) records what the controls will change. What it raises stops the request unsent."""

_current_task: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "gridwire_master_task", default=None
)


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
        trace_budget: TraceBudget | None = None,
        channel: Channel | None = None,
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
        self.frames = FrameLog(trace_limit, trace_budget)
        self._tasks_shown: tuple[object, dict[str, Any]] = (None, {})
        self._named = name_of is not None
        self.store = ValueStore(name_of or no_names)
        self.events = EventLog(event_limit)
        self.deviations = Deviations(settings.name)
        self.runner = TaskRunner(self._perform, settings.effective_tasks(allow_control), self._free)
        self.schedules = Schedules(self._scheduled, clock.monotonic, self._scan_ready)
        self.indications: IIN | None = None
        self.wire = Wire(
            settings.name,
            allow_control=allow_control,
            clock=clock,
            bus=bus,
            frames=self.frames,
            deviations=self.deviations,
            capture=capture,
        )
        # One request in flight: per outstation, or per channel on a half-duplex one (D186).
        shared = channel.lock if channel is not None else None
        self._lock = shared if shared is not None else asyncio.Lock()
        self.hold = Hold()  # while held, only the holder's requests go (Master.hold)
        self.command_hook: CommandHook | None = None  # see CommandHook
        self._rules = ExchangeRules(settings.confirms)
        self._flight: InFlight | None = None
        self._spent: list[Response] | None = None  # freed as the next request leaves (D233)
        self._changed: asyncio.Event | None = None  # made when someone waits (changed())
        # exchanges by outcome and unsolicited responses since the start (status shows them)
        self.counts: dict[str, int] = {}
        self.connector = Connector(
            settings,
            clock,
            self.wire,
            on_data=self._on_data,
            on_up=self._connected,
            on_down=self._disconnected,
            channel=channel,
        )

    # --- state ----------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.wire.connection is not None

    @property
    def connection(self) -> Link | None:
        return self.wire.connection

    def status(self) -> OutstationStatus:
        s = self.settings
        tasks = self.runner.tasks
        shown = self._tasks_shown
        if shown[0] is not tasks:  # the settings' dump, made again only when they change
            shown = self._tasks_shown = (tasks, tasks.model_dump())
        indications = self.indications
        return OutstationStatus(
            name=self.name,
            host=s.host,
            port=s.port,
            channel=s.channel,
            state=self.state,
            connected=self.wire.connection is not None,
            tasks=shown[1],
            tasks_due=self.runner.due,
            reconnect=s.reconnect,
            read_retries=s.read_retries,
            manual=s.manual,
            confirm=s.confirms,
            tls=s.tls is not None,
            outstation_address=s.outstation_address,
            master_address=s.master_address,
            profile=s.profile,
            device_profile=s.device_profile,
            indications=indications.names if indications is not None else [],
            last_error=self.last_error,
            schedules=self.schedules.as_dict(),
            deviations=self.deviations.on,
            counts=dict(self.counts),
        )

    def _scan_ready(self) -> Awaitable[object] | None:
        """None when a scheduled scan can be made, else what ends once it can (connected)."""
        return None if self.connected else self.connector.up.wait()

    def changed(self) -> Awaitable[object]:
        """Finishes when the next response or unsolicited response has been taken in."""
        event = self._changed
        if event is None:
            event = self._changed = asyncio.Event()
        return event.wait()

    def _pulse(self) -> None:
        """Wake whoever waits in :meth:`changed` (an event is made only for a waiter: most
        responses have none, and an event kept per outstation between polls was two more
        objects for the collector to walk)."""
        event, self._changed = self._changed, None
        if event is not None:
            event.set()

    def set_tasks(self, changes: dict[str, Any]) -> TaskSettings:
        tasks = self.runner.tasks.merged(changes, self.allow_control)
        self.runner.set(tasks)
        return tasks

    async def idle(self) -> None:
        await self.runner.idle()

    # --- connection (its life is the Connector's) ---------------------------------------

    @property
    def state(self) -> State:
        return self.connector.state

    @property
    def last_error(self) -> str | None:
        return self.connector.last_error

    def _not_connected(self) -> ConnectionFailed:
        """Not connected, and why when the connector knows (D140)."""
        why = f" ({self.last_error})" if self.last_error else ""
        return ConnectionFailed(f"outstation {self.name} is not connected{why}")

    @property
    def endpoints(self) -> tuple[Endpoint, Endpoint] | None:
        """(master, outstation) ends of the latest connection, for captures."""
        return self.connector.endpoints

    async def connect(self, wait: float | None = None) -> None:
        """Connect unless connected; with ``wait``, try once a second for that many seconds.
        ConnectionFailed with the last reason when no attempt succeeded."""
        await self.connector.connect(wait)

    async def disconnect(self) -> None:
        """Close the connection; no reconnection follows."""
        await self.connector.disconnect()

    async def close(self) -> None:
        """Disconnect and stop everything (the outstation is removed or the master closes)."""
        self.schedules.close()
        self.runner.close()
        await self.connector.close()

    def _connected(self) -> None:
        self.association.reset()
        self._bus.publish("connection", {"outstation": self.name, "connected": True})
        self.runner.connected()

    def _disconnected(self) -> None:
        flight = self._flight
        if flight is not None:
            flight.transaction.abandon()
            flight.finish()
        self.runner.disconnected()
        self._bus.publish("connection", {"outstation": self.name, "connected": False})
        self._pulse()

    # --- sending --------------------------------------------------------------------------

    def _send(
        self,
        kind: str,
        function: FunctionCode | None,
        frames: list[bytes],
        body: bytes | None = None,
    ) -> float:
        """Write ``frames`` through the wire (the one place octets leave: :class:`Wire`)."""
        return self.wire.send(kind, function, frames, body)

    # --- receiving ------------------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        received = self.association.receive(data)
        now_ms = wall_ms(self.clock)
        self.wire.arrived(received.frames, now_ms)  # logged as a CONFIRM leaves (D232)
        try:
            self._received(received, now_ms)
        finally:
            self.wire.settle()

    def _received(self, received: Received, now_ms: float) -> None:
        for reason in received.discarded:
            log.debug("%s: discarded %s", self.name, reason)
        if received.replies and self.wire.connection is not None:
            self._send("link", None, received.replies)
        now = self.clock.monotonic()
        for fragment in received.fragments:
            verdict = self._rules.receive(fragment, now)
            if not verdict.taken:
                log.debug(
                    "%s: response seq %d not taken: %s", self.name, fragment.seq, verdict.reason
                )
                continue
            if verdict.notes:
                log.debug(
                    "%s: response seq %d: %s", self.name, fragment.seq, ", ".join(verdict.notes)
                )
            try:
                if fragment.unsolicited:
                    self._unsolicited(fragment, verdict)
                else:
                    self._solicited(fragment, verdict, now_ms)
            except GridwireError as exc:
                log.warning("%s: fragment not taken in: %s", self.name, exc)

    def _take_in(self, fragment: Fragment, confirm: bool) -> Response:
        """Confirm the fragment when the rules say so, before its objects are decoded; then
        decode them and keep them, with its indications (its frames logged after, D232)."""
        if confirm and self.wire.connection is not None:
            out = self.association.confirm(fragment.seq, unsolicited=fragment.unsolicited)
            kind = "unsolicited_confirm" if fragment.unsolicited else "confirm"
            self._send(kind, FunctionCode.CONFIRM, out.frames)
        self.wire.settle()
        response = parse_response(fragment.raw)
        if response.objects:
            if self._named:
                name_objects(response.objects, self.store.name_of)
            keep(response, self.store, self.events, self.clock.monotonic())
        self.indications = fragment.iin
        return response

    def _solicited(self, fragment: Fragment, verdict: Verdict, now_ms: float) -> None:
        """A fragment the rules took for the request in flight."""
        flight = self._flight
        response = self._take_in(fragment, verdict.confirm)
        if flight is not None:
            flight.take(response)
            if flight.received_ms is None:
                flight.received_ms = now_ms
            flight.last_received = self.clock.monotonic()
            if verdict.complete:
                flight.finish()
        self._pulse()

    def _unsolicited(self, fragment: Fragment, verdict: Verdict) -> None:
        response = self._take_in(fragment, verdict.confirm)
        self.counts["unsolicited"] = self.counts.get("unsolicited", 0) + 1
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
        # the wire's gate, before a turn or a sequence number
        self.wire.admit(function, body if isinstance(body, bytes) else None)
        if not self.connected:
            raise self._not_connected()
        hook = self.command_hook
        if hook is not None and function in CONTROL_FUNCTIONS and not callable(body):
            await hook(function, body)
        async with self.hold.turn(self._lock, own=task is None):
            if not self.connected:
                raise self._not_connected()
            return await self._exchange(function, body, task, broadcast)

    async def _exchange(
        self, function: FunctionCode, body: Body, task: str | None, broadcast: int | None
    ) -> ExchangeResult:
        loop = asyncio.get_running_loop()
        if callable(body):
            body = body()  # nothing awaits between this and the send below
        out = self.association.request(function, body, destination=broadcast)
        started = self.clock.monotonic()
        transaction = self._rules.start(
            function,
            out.seq,
            timeout=self.settings.response_timeout,
            read_retries=self.settings.read_retries,
            broadcast=broadcast,
        )
        flight = InFlight(transaction, function, body, loop.create_future(), timers=timers())
        flight.observer = taken_observer.get()
        self._flight = flight
        try:
            flight.sent_ms = self._send("request", function, out.frames, body)
            transaction.sent(self.clock.monotonic())
            self._spent = None
            if not transaction.ended:
                self._arm(flight)
                await flight.future
        except asyncio.CancelledError:
            if transaction.answered:
                transaction.abandon()
                self._finish(flight, task, out.fragment, started, broadcast, "abandoned")
            raise
        finally:
            flight.finish()
            self._rules.end(transaction)
            if self._flight is flight:
                self._flight = None
        return self._finish(flight, task, out.fragment, started, broadcast)

    def _arm(self, flight: InFlight) -> None:
        deadline = flight.transaction.deadline
        assert deadline is not None
        delay = max(0.0, deadline - self.clock.monotonic())  # a deadline on the one clock
        assert flight.timers is not None
        flight.timer = flight.timers.call_later(delay, self._on_deadline, flight)

    def _on_deadline(self, flight: InFlight) -> None:
        """The timer: ask the rules what the time means (wait on, send again, or ended)."""
        flight.timer = None
        if flight.future.done():
            return
        transaction = flight.transaction
        now = self.clock.monotonic()
        if transaction.poll(now, can_retry=self.connected) == "retry":
            try:
                again = self.association.request(flight.function, flight.body, seq=transaction.seq)
                flight.sent_ms = self._send("request", flight.function, again.frames, flight.body)
            except GridwireError as exc:
                log.warning("%s: %s not sent again: %s", self.name, flight.function.name, exc)
                transaction.poll(now, can_retry=False)
            else:
                transaction.sent(now)
        if transaction.ended:
            flight.finish()
        else:
            self._arm(flight)

    def _finish(
        self,
        flight: InFlight,
        task: str | None,
        fragment: bytes,
        started: float,
        broadcast: int | None,
        outcome: Outcome | None = None,
    ) -> ExchangeResult:
        """The exchange's record, published; ``outcome`` overrides the transaction's (a
        caller cancelled abandons the exchange whatever arrived)."""
        transaction = flight.transaction
        if outcome is None:
            outcome = transaction.outcome or "abandoned"
        responses = flight.responses
        last = flight.last_received
        ended = last if outcome == "complete" and last is not None else self.clock.monotonic()
        record = exchange_record(
            flight.function.name,
            task,
            transaction.seq,
            outcome,
            fragment,
            responses,
            (ended - started) * 1000.0,
            retries=transaction.retries,
            broadcast=broadcast,
            objects=flight.objects,
        )
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        self._bus.publish("exchange", {"outstation": self.name, "exchange": record})
        if responses:
            self.runner.indicated(responses[-1].iin, task=task, objects=record.object_count)
        self._spent = responses if len(responses) > 1 else None  # freed later (D233)
        return ExchangeResult(
            record, responses, flight.sent_ms, flight.received_ms, list(transaction.notes)
        )

    # --- what the master does by itself ---------------------------------------------------

    async def _free(self) -> None:
        """Return once no request is in flight (the task runner picks its next task then)."""
        async with self._lock:
            pass

    async def _perform(self, name: str) -> None:
        """Run the task ``name`` (called by the task runner, in its own asyncio task)."""
        _current_task.set(name)
        context = TaskContext(
            self.runner.tasks.value(name),
            self.indications or IIN(0),
            self.settings.time_procedure,
        )
        await BY_NAME[name].perform(self, context)

    async def _scheduled(self, kind: str) -> None:
        await self.exchange(FunctionCode.READ, scan_body(kind), task="repeat")
