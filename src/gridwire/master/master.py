"""The master's Python API: :class:`Master`, one asyncio object for every outstation.

Every operation names its outstation; an unknown name is a RequestError that names it, an
outstation not connected a ConnectionFailed, an operation that commands an outstation a
NotAllowed unless the master was created with ``allow_control`` (the wire's gate,
:mod:`gridwire.master.gate`). Each command is logged once (:mod:`gridwire.master.command_log`). An outstation that does not
answer is not an error: the exchange ends with outcome ``timeout``.

Each outstation has its own :class:`Session` (one request in flight, others wait their turn
in order); outstations run in parallel. Updates go out on :attr:`Master.bus`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from gridwire.capture import RotatingPcapWriter
from gridwire.channels.channel import ChannelStatus
from gridwire.channels.links import check_tls
from gridwire.channels.registry import Channels
from gridwire.channels.settings import ChannelSettings
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.objects.records import DnpObject
from gridwire.errors import BadParameter, Conflict, UnknownName
from gridwire.master import controls as controls_module
from gridwire.master import gate, status_pages, timesync
from gridwire.master.bus import EventBus
from gridwire.master.command_log import command
from gridwire.master.conditions import (
    EventCondition,
    IndicationCondition,
    ValueCondition,
    Watch,
    condition_from,
    wait,
)
from gridwire.master.controls import Control, ControlProfile
from gridwire.master.errors import UnknownOutstation
from gridwire.master.hold import Hold
from gridwire.master.limits import STATUS_PAGE
from gridwire.master.on_channel import let_go, on_channel
from gridwire.master.queries import OutstationQueries
from gridwire.master.records import (
    Exchange,
    OperateResult,
    OutstationStatus,
    RepeatStatus,
    Status,
    StoredValue,
    TimeSyncResult,
    WaitResult,
)
from gridwire.master.scans import (
    SCAN_KINDS,
    clear_restart_body,
    freeze_request,
    read_body,
    scan_body,
    unsolicited_body,
)
from gridwire.master.session import CommandHook, Session
from gridwire.master.settings import OutstationSettings, TaskSettings
from gridwire.master.trace_budget import DEFAULT_TRACE_BUDGET, TraceBudget
from gridwire.process.clock import SYSTEM_CLOCK, Clock

ProfileSource = Callable[[str], ControlProfile]
"""Given an outstation's ``profile`` setting, the point map that names its points
(RequestError for a profile it does not know). The master itself knows no profile: the service
and :class:`gridwire.derops.DerMaster` pass ``gridwire.der.profiles.ProfileLoader``."""

BROADCAST_ADDRESSES: dict[str, int] = {
    "no_confirm": 0xFFFD,
    "shall_confirm": 0xFFFE,
    "optional_confirm": 0xFFFF,
}
_SMALLEST_CONTROL = 4  # octets: g41v2's value and status, after a one-octet index prefix


Fence = Callable[[str, FunctionCode], None]
"""A check before each commanding request: (outstation, function); raises to stop it."""


class Master(OutstationQueries):
    """A DNP3 master for any number of outstations, on one asyncio loop."""

    _fence: Fence | None = None  # see command_fence

    def __init__(
        self,
        *,
        allow_control: bool = False,
        clock: Clock | None = None,
        capture: Path | None = None,
        capture_max_bytes: int = 64 << 20,
        capture_keep: int = 5,
        trace_limit: int = 10_000,
        event_limit: int = 10_000,
        profiles: ProfileSource | None = None,
        trace_budget: int = DEFAULT_TRACE_BUDGET,
    ) -> None:
        self.allow_control = allow_control
        self.clock: Clock = clock or SYSTEM_CLOCK
        self.bus = EventBus()
        self._trace_limit = trace_limit
        # Every outstation's trace together keeps at most trace_budget bytes (D147).
        self.trace_budget = TraceBudget(trace_budget)
        self._event_limit = event_limit
        self._profiles = profiles
        self._capture = (
            RotatingPcapWriter(capture, capture_max_bytes, capture_keep)
            if capture is not None
            else None
        )
        self._sessions: dict[str, Session] = {}
        self._tally = status_pages.tally()  # outstations by state (D208)
        self._maps: dict[str, ControlProfile] = {}
        self.channels = Channels(self.clock.monotonic)  # by name (DESIGN D184)

    # --- outstations ----------------------------------------------------------------------

    def session(self, outstation: str) -> Session:
        """The outstation's session; RequestError naming an outstation nobody added."""
        session = self._sessions.get(outstation)
        if session is None:
            raise UnknownOutstation(f"unknown outstation {outstation!r}")
        return session

    def point_map(self, outstation: str) -> ControlProfile | None:
        """The point map of the outstation's profile (what the profile source gave), or None
        when it has none."""
        self.session(outstation)
        return self._maps.get(outstation)

    def status(self) -> Status:
        """Every outstation (for a caller in this process; the ``status`` operation pages,
        :meth:`status_page`), and the channels."""
        status = status_pages.every(self.allow_control, list(self._sessions.values()))
        status.channels = self.channels.status()
        return status

    async def status_page(self, offset: int = 0, limit: int = STATUS_PAGE) -> Status:
        """The outstations from ``offset`` (in the order they were added), ``limit`` at most,
        a summary of them all (:mod:`gridwire.master.status_pages`, D149), and the channels."""
        sessions = list(self._sessions.values())
        status = await status_pages.page(self.allow_control, sessions, offset, limit, self._tally)
        status.channels = self.channels.status()
        return status

    def add_channel(self, settings: ChannelSettings) -> ChannelStatus:
        """A channel outstations can name; it opens when the first of them connects."""
        return self.channels.add(settings)

    async def remove_channel(self, name: str) -> ChannelStatus:
        """Forget a channel no outstation is on (Conflict while one is)."""
        return await self.channels.remove(name)

    async def add(self, settings: OutstationSettings) -> OutstationStatus:
        """Add an outstation and connect to it; answers once connected.

        The outstation stays added when the connection cannot be made (ConnectionFailed is
        raised; ``connect`` tries again)."""
        if settings.name in self._sessions:
            raise Conflict(f"outstation {settings.name!r} was already added")
        settings.effective_tasks(self.allow_control)  # NotAllowed / RequestError first
        if settings.tls is not None:
            check_tls(settings.tls)
        point_map = None
        if settings.profile is not None:
            if self._profiles is None:
                raise BadParameter(
                    f"outstation {settings.name!r} is given profile {settings.profile!r}, but "
                    "this master has no profile source: create it with "
                    "Master(profiles=gridwire.der.profiles.ProfileLoader(None)), or use "
                    "gridwire.derops.DerMaster"
                )
            point_map = self._profiles(settings.profile)
        settings, channel = on_channel(settings, self.channels)
        session = Session(
            settings,
            allow_control=self.allow_control,
            clock=self.clock,
            bus=self.bus,
            trace_limit=self._trace_limit,
            trace_budget=self.trace_budget,
            event_limit=self._event_limit,
            capture=self._capture,
            name_of=point_map.name_of if point_map is not None else None,
            channel=channel,
        )
        self._sessions[settings.name] = session
        session.connector.count_in(self._tally)
        if self._fence is not None:
            session.wire.fence = functools.partial(self._fence, settings.name)
        if point_map is not None:
            self._maps[settings.name] = point_map
        self.bus.publish("outstations", {})
        try:
            await session.connect()
        finally:
            for kind, interval in settings.schedules().items():
                session.schedules.set(kind, interval)
        return session.status()

    async def remove(self, outstation: str) -> OutstationStatus:
        """Close the outstation's connection and forget it."""
        session = self.session(outstation)
        await session.close()
        session.frames.close()
        let_go(session.settings, self.channels)
        self._sessions.pop(outstation, None)
        session.connector.count_in(None)
        self._maps.pop(outstation, None)
        self.bus.publish("outstations", {})
        return session.status()

    async def connect(self, outstation: str, wait: float | None = None) -> OutstationStatus:
        """Connect (with ``wait``: trying once a second for that many seconds)."""
        if wait is not None and wait < 0:
            raise BadParameter(f"wait {wait} is negative")
        session = self.session(outstation)
        await session.connect(wait)
        return session.status()

    async def disconnect(self, outstation: str) -> OutstationStatus:
        session = self.session(outstation)
        await session.disconnect()
        return session.status()

    async def idle(self, outstation: str) -> OutstationStatus:
        """Wait until nothing the master does unasked is due or under way."""
        session = self.session(outstation)
        await session.idle()
        return session.status()

    def set_tasks(self, outstation: str, tasks: dict[str, Any]) -> TaskSettings:
        """Merge ``tasks`` into the outstation's; a due task turned off is not done."""
        return self.session(outstation).set_tasks(tasks)

    async def close(self) -> None:
        """Disconnect every outstation and stop everything."""
        for session in list(self._sessions.values()):
            await session.close()
            session.connector.count_in(None)
        self._sessions.clear()
        self._maps.clear()
        await self.channels.close()
        if self._capture is not None:
            self._capture.close()
        self.bus.close()

    # --- reading --------------------------------------------------------------------------

    async def scan(self, outstation: str, kind: str) -> Exchange:
        """One read: integrity, events, class0, class1, class2, class3 or outputs."""
        body = scan_body(kind)
        return await self._exchange(outstation, FunctionCode.READ, body)

    async def read(self, outstation: str, points: dict[str, list[int | str]]) -> Exchange:
        """One READ of range headers (variation 0) for the points named by type; refused
        when the headers would not fit the outstation's ``max_request_fragment``."""
        body = read_body(points, self.session(outstation).association.request_room)
        return await self._exchange(outstation, FunctionCode.READ, body)

    def values(self, outstation: str) -> list[StoredValue]:
        return self.session(outstation).store.values(self.clock.monotonic())

    def events(self, outstation: str) -> list[DnpObject]:
        return self.session(outstation).events.items()

    async def wait_for(
        self,
        outstation: str,
        timeout: float,  # noqa: ASYNC109 - the contract names it; nothing is sent meanwhile
        *,
        value: ValueCondition | dict[str, Any] | None = None,
        event: EventCondition | dict[str, Any] | None = None,
        indication: IndicationCondition | dict[str, Any] | None = None,
    ) -> WaitResult:
        """Wait until the condition holds or ``timeout`` seconds pass; nothing is sent."""
        if timeout < 0:
            raise BadParameter(f"timeout {timeout} is negative")
        session = self.session(outstation)
        condition = condition_from(value, event, indication)
        watch = Watch(condition, session.store, session.events)
        return await wait(
            watch,
            timeout,
            indications=lambda: session.indications,
            changed=session.changed,
            clock=self.clock,
        )

    # --- requests -------------------------------------------------------------------------

    async def request(self, outstation: str, function: str, body: bytes = b"") -> Exchange:
        """Any request by function code name, with ``body`` as its object data."""
        code = _function(function)
        if code.is_response:
            raise BadParameter(f"{code.name} is a response, not a request")
        session = self.session(outstation)
        if not gate.commands(code, body, session.wire.read_handles):
            return await self._exchange(outstation, code, body)
        with command(f"request {code.name}", outstation, {"body": body.hex()}) as record:
            exchange = await self._exchange(outstation, code, body)
            record.result = _outcome(exchange)
        return exchange

    async def operate(
        self,
        outstation: str,
        points: dict[str, dict[str, object]],
        mode: str = "direct",
        variation: int | None = None,
    ) -> OperateResult:
        session = self.session(outstation)
        _fits(sum(len(v) for v in points.values() if isinstance(v, dict)), session)
        asked = {"points": points, "mode": mode, "variation": variation}
        with command("operate", outstation, asked) as record:
            result = await controls_module.operate(
                session, points, mode, variation, self._maps.get(outstation)
            )
            record.result = _operated(result)
        return result

    async def operate_controls(
        self, outstation: str, controls: list[Control], mode: str = "direct"
    ) -> OperateResult:
        """Operate ``controls`` in one request, in the order given, each sent as it is
        (:class:`gridwire.master.controls.Control`); the profile only names them."""
        session = self.session(outstation)
        asked = {"controls": [[c.type, c.index, c.value, c.variation] for c in controls]}
        with command("operate", outstation, {**asked, "mode": mode}) as record:
            result = await controls_module.operate_controls(
                session, controls, mode, self._maps.get(outstation)
            )
            record.result = _operated(result)
        return result

    async def write_time(self, outstation: str) -> Exchange:
        session = self.session(outstation)
        with command("write_time", outstation, {}) as record:
            exchange = await timesync.write_time(session)
            record.result = _outcome(exchange)
        return exchange

    async def clear_restart(self, outstation: str) -> Exchange:
        self.session(outstation)
        with command("clear_restart", outstation, {}) as record:
            exchange = await self._exchange(outstation, FunctionCode.WRITE, clear_restart_body())
            record.result = _outcome(exchange)
        return exchange

    async def synchronize_time(self, outstation: str, procedure: str = "lan") -> TimeSyncResult:
        if procedure not in ("lan", "non_lan"):
            raise BadParameter(f"procedure {procedure!r} is not lan or non_lan")
        session = self.session(outstation)
        with command("synchronize_time", outstation, {"procedure": procedure}) as record:
            result = await timesync.synchronize_time(session, procedure)
            record.result = (
                f"written={result.written} accepted={result.accepted} "
                f"time_ms={result.time_ms} delay_ms={result.delay_ms}"
            )
        return result

    async def freeze(self, outstation: str, clear: bool = False, no_ack: bool = False) -> Exchange:
        """Freeze every counter (IMMED_FREEZE, FREEZE_CLEAR, or their no-ack forms)."""
        function, body = freeze_request(bool(clear), bool(no_ack))
        self.session(outstation)
        with command("freeze", outstation, {"clear": clear, "no_ack": no_ack}) as record:
            exchange = await self._exchange(outstation, function, body)
            record.result = _outcome(exchange)
        return exchange

    async def restart(self, outstation: str, kind: str = "cold") -> Exchange:
        functions = {"cold": FunctionCode.COLD_RESTART, "warm": FunctionCode.WARM_RESTART}
        function = functions.get(kind)
        if function is None:
            raise BadParameter(f"restart kind {kind!r} is not cold or warm")
        self.session(outstation)
        with command("restart", outstation, {"kind": kind}) as record:
            exchange = await self._exchange(outstation, function)
            record.result = _outcome(exchange)
        return exchange

    async def broadcast(
        self,
        outstation: str,
        function: str,
        body: bytes = b"",
        address: str = "optional_confirm",
    ) -> Exchange:
        """A request to a broadcast address on the outstation's connection (outcome sent)."""
        code = _function(function)
        destination = BROADCAST_ADDRESSES.get(address)
        if destination is None:
            known = ", ".join(BROADCAST_ADDRESSES)
            raise BadParameter(f"broadcast address {address!r} is not one of {known}")
        if code.is_response:
            raise BadParameter(f"{code.name} is a response, not a request")
        session = self.session(outstation)
        if not gate.commands(code):
            return (await session.exchange(code, body, broadcast=destination)).record
        asked = {"address": address, "body": body.hex()}
        with command(f"broadcast {code.name}", outstation, asked) as record:
            result = await session.exchange(code, body, broadcast=destination)
            record.result = _outcome(result.record)
        return result.record

    async def enable_unsolicited(self, outstation: str, classes: list[int]) -> Exchange:
        body = unsolicited_body(classes)
        return await self._exchange(outstation, FunctionCode.ENABLE_UNSOLICITED, body)

    async def disable_unsolicited(self, outstation: str, classes: list[int]) -> Exchange:
        body = unsolicited_body(classes)
        return await self._exchange(outstation, FunctionCode.DISABLE_UNSOLICITED, body)

    async def repeat(
        self, outstation: str, kind: str | None, interval: float | None
    ) -> RepeatStatus:
        """Scan ``kind`` every ``interval`` seconds; interval None ends that schedule, kind
        None ends every one. A new schedule abandons the scan the old one has under way."""
        session = self.session(outstation)
        if kind is None:
            session.schedules.close()
            return RepeatStatus(session.schedules.as_dict())
        if kind not in SCAN_KINDS:
            raise UnknownName(f"unknown scan kind {kind!r} (one of {', '.join(SCAN_KINDS)})")
        session.schedules.set(kind, interval)  # RequestError below MIN_SCAN_INTERVAL
        return RepeatStatus(session.schedules.as_dict())

    # --- what was seen: trace, capture, clear (OutstationQueries) -------------------------

    def hold(self, outstation: str) -> AbstractAsyncContextManager[Hold]:
        """Hold ``outstation`` for the ``async with`` block: requests from other callers,
        tasks and scheduled scans wait until it ends; the holder's own go
        (:mod:`gridwire.master.hold`)."""
        return self.session(outstation).hold()

    def command_hook(self, outstation: str, hook: CommandHook | None) -> None:
        """Install (or with None remove) the hook awaited before each control request to
        ``outstation`` leaves (:data:`gridwire.master.session.CommandHook`)."""
        self.session(outstation).command_hook = hook

    def command_fence(self, fence: Fence | None) -> None:
        """Install (or with None remove) a check that every request that commands any
        outstation passes, synchronously, as it is handed over and again right before it is
        written: ``fence(outstation, function)``; what it raises (ConnectionFailed, say)
        stops the request unsent. The caller decides what it checks (a cluster worker: that
        its lease on the outstation is held, D155). Applies to outstations added later too."""
        self._fence = fence
        for name, session in self._sessions.items():
            session.wire.fence = None if fence is None else functools.partial(fence, name)

    def deviate(self, outstation: str, deviations: dict[str, object]) -> dict[str, object]:
        """Turn named deviations on or off; returns those on."""
        return self.session(outstation).deviations.set(deviations)

    # --- helpers --------------------------------------------------------------------------

    async def _exchange(
        self, outstation: str, function: FunctionCode, body: bytes = b""
    ) -> Exchange:
        result = await self.session(outstation).exchange(function, body)
        return result.record


def _outcome(exchange: Exchange) -> str:
    """An exchange's end, as a command record's result."""
    return f"outcome={exchange.outcome} indications={exchange.indications}"


def _operated(result: OperateResult) -> str:
    """An operate's end, as a command record's result."""
    statuses = [(s.type, s.index, s.status) for s in result.statuses]
    return f"accepted={result.accepted} statuses={statuses}"


def _fits(controls: int, session: Session) -> None:
    """RequestError, before any control is built, for more controls than one request to the
    outstation can carry even at their smallest."""
    room = session.association.request_room
    if controls * _SMALLEST_CONTROL > room:
        raise BadParameter(
            f"operate: {controls} controls cannot fit one request to this outstation "
            f"({room} octets of object data: its max_request_fragment less 2); operate "
            "fewer at a time"
        )


def _function(name: str) -> FunctionCode:
    try:
        return FunctionCode.from_name(name)
    except DecodeError as exc:
        raise BadParameter(str(exc)) from None
