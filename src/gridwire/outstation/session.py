"""The outstation session, sans-IO: octets and the time in, octets to send and a deadline out.

The caller (the asyncio server, or a test) says when a master connects and disconnects, hands
over what it receives with :meth:`OutstationSession.receive`, calls
:meth:`OutstationSession.poll` when :attr:`OutstationSession.deadline` passes or after the
device's values changed, and writes whatever frames these return, in order. ``now`` is
seconds on a monotonic clock; the device's DNP3 time comes from its database's clock.

Application rules kept here (IEEE 1815-2012 clause 4):

- A request must be one fragment (FIR and FIN) without UNS; anything else is ignored. A
  request identical (octets and sequence) to the previous one that was not a READ is not
  carried out again: the previous response is sent again.
- A response takes the request's sequence number; each further fragment of it the next one.
  CON is set when a fragment carries events or is not the last (and on the response that
  reports a broadcast sent to 0xFFFE). Before the next fragment goes out the master must
  confirm this one; its events are retired only by that confirm (matching sequence, UNS
  clear). A new request, a confirm timeout or a lost connection abandons the rest of a
  response and gives its events back.
- Functions the outstation does not serve are refused with FUNC_NOT_SUPPORTED; objects it
  does not serve with OBJECT_UNKNOWN; bad qualifiers, ranges and values with PARAMETER_ERROR.
  DIRECT_OPERATE_NR, IMMED_FREEZE_NR, FREEZE_CLEAR_NR (every function that takes no
  response) and anything sent to a broadcast address draw no response at all.
- Unsolicited responses (only when the configuration allows them): after a start or
  restart a null unsolicited response, repeated until confirmed; then, for the classes a
  master enabled, the waiting events, each unsolicited response repeated identically (same
  sequence number) until the master confirms it with UNS set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gridwire.dnp3.app.control import AppControl
from gridwire.dnp3.app.fragments import Request, encode_response, parse_request
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import CLASS_EVENTS, IIN
from gridwire.dnp3.errors import DecodeError
from gridwire.dnp3.objects.controls import CommandStatus
from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.outstation.channel import Channel, Received
from gridwire.outstation.commands import echo, read_commands
from gridwire.outstation.config import OutstationConfig
from gridwire.outstation.controls import Mode, SelectRules
from gridwire.outstation.device import Device
from gridwire.outstation.files import served_files
from gridwire.outstation.functions import (
    plan_assign_class,
    plan_freeze,
    plan_write,
    unsolicited_classes,
)
from gridwire.outstation.misbehaviour import ACCEPT_BAD_CRC, FORGET_UNCONFIRMED_EVENTS
from gridwire.outstation.reads import plan_read
from gridwire.outstation.refusal import Refused
from gridwire.outstation.responses import EventPart, FragmentWriter, Part

F = FunctionCode
_HEADER = 4  # control, function, IIN1, IIN2
_CONFIRM_BROADCAST = 0xFFFE


@dataclass(slots=True)
class _Reply:
    """What a request is answered with: objects, or parts of a read to write fragment by
    fragment; ``iin`` holds the refusal bits of this response alone."""

    iin: IIN = IIN(0)  # noqa: RUF009 (an immutable flag value)
    body: bytes = b""
    parts: list[Part] | None = None
    then: Callable[[], list[bytes]] | None = None  # after the response is built (a restart)


@dataclass(slots=True)
class _Awaiting:
    """A fragment sent with CON, waiting for its confirm."""

    seq: int
    token: int
    deadline: float
    fragment: bytes
    null: bool = False
    broadcast: bool = False


class OutstationSession:
    """One outstation and its single master association."""

    def __init__(self, device: Device, config: OutstationConfig | None = None) -> None:
        self.config = (config or OutstationConfig()).validate()
        self.device = device
        self.database = device.database
        self.database.clock.resync_after = self.config.need_time_after
        self.channel = Channel(
            self.config.outstation_address,
            self.config.master_address,
            self.config.max_fragment,
            accept_bad_crc=ACCEPT_BAD_CRC in self.config.misbehave,
        )
        self.select = SelectRules(self.config.select_timeout)
        self.files = served_files(self.config)
        self._files = self.files.events if self.files is not None else None  # D200
        self.restarted = True  # DEVICE_RESTART (IIN1.7) until a master clears it
        self.unsolicited_enabled: set[int] = set(self.config.unsolicited_classes)
        self.connected = False
        self._broadcast: int | None = None  # a broadcast not yet reported
        self._writer: FragmentWriter | None = None
        self._solicited: _Awaiting | None = None
        self._unsolicited: _Awaiting | None = None
        self._unsolicited_ready = False  # the null unsolicited response was confirmed
        self._unsolicited_seq = 0
        self._last_request: bytes | None = None
        self._last_response: bytes | None = None
        self._tokens = 0
        self.requests = 0
        self.refusals = 0

    # -- connection ----------------------------------------------------------------------
    def connect(self, now: float) -> list[bytes]:
        """A master connected: a fresh link and transport; the null unsolicited response
        when unsolicited reporting is allowed."""
        self.disconnect(now)
        self.connected = True
        self.channel.reset()
        return self._start_unsolicited(now)

    def disconnect(self, now: float) -> None:
        """The connection ended: what was in flight is given back."""
        self.connected = False
        self._abandon()
        if self._unsolicited is not None:
            self._release(self._unsolicited.token)
            self._unsolicited = None
        self._unsolicited_ready = False
        self.select.disarm()
        self._last_request = self._last_response = None

    # -- driving -------------------------------------------------------------------------
    @property
    def deadline(self) -> float | None:
        """When :meth:`poll` must next be called (None: only when values change)."""
        times = [w.deadline for w in (self._solicited, self._unsolicited) if w is not None]
        return min(times) if times else None

    def receive(self, data: bytes, now: float) -> list[bytes]:
        """Octets from the master; returns the frames to send, in order."""
        fragments, out = self.channel.receive(data)
        for received in fragments:
            out += self._fragment(received, now)
        out += self._maybe_unsolicited(now)
        return out

    def poll(self, now: float) -> list[bytes]:
        """Timers that are due, and unsolicited events to report."""
        out: list[bytes] = []
        solicited = self._solicited
        if solicited is not None and now >= solicited.deadline:
            self._abandon()
        unsolicited = self._unsolicited
        if unsolicited is not None and now >= unsolicited.deadline:
            if unsolicited.null or self.unsolicited_enabled:
                unsolicited.deadline = now + self.config.unsolicited_retry
                out += self.channel.send(unsolicited.fragment)
            else:  # the master disabled reporting meanwhile: give the events back
                self._release(unsolicited.token)
                self._unsolicited = None
        out += self._maybe_unsolicited(now)
        return out

    # -- requests ------------------------------------------------------------------------
    def _fragment(self, received: Received, now: float) -> list[bytes]:
        fragment = received.fragment
        if len(fragment) < 2:
            return []
        control = AppControl.from_octet(fragment[0])
        try:
            function = FunctionCode.from_octet(fragment[1])
        except DecodeError:
            function = None
        if function is F.CONFIRM:
            return self._confirm(control, now)
        if not (control.fir and control.fin) or control.uns:
            return []
        if function is not None and function.is_response:
            return []
        broadcast = received.broadcast
        if broadcast is None and fragment == self._last_request and self._last_response:
            return self.channel.send(self._last_response)  # a repeated request
        self.requests += 1
        self._abandon()
        if function is not F.OPERATE:
            self.select.disarm()
        if broadcast is not None:
            self._broadcast = broadcast
        reply = self._carry_out(function, fragment, control.seq, now)
        if reply is None or broadcast is not None:
            self._last_request = self._last_response = None
            out = reply.then() if reply is not None and reply.then is not None else []
            return out
        if reply.iin:
            self.refusals += 1
        if reply.parts is not None:
            self._last_request = self._last_response = None
            self._writer = FragmentWriter(
                self.database, reply.parts, self.config.max_fragment - _HEADER, now, self._files
            )
            return self._next_fragment(control.seq, True, reply.iin, now)
        self._last_request = self._last_response = None
        out = self._single(control.seq, reply.iin, reply.body, now)
        if self._last_response is not None:
            self._last_request = fragment
        if reply.then is not None:
            out += reply.then()
        return out

    def _carry_out(
        self, function: FunctionCode | None, fragment: bytes, seq: int, now: float
    ) -> _Reply | None:
        """The reply to a request; None when the function takes no response."""
        if function is None:
            return _Reply(IIN.FUNC_NOT_SUPPORTED)
        try:
            request = parse_request(fragment)
        except DecodeError:
            return _Reply(IIN.PARAMETER_ERROR) if function.expects_response else None
        silent = not function.expects_response
        try:
            reply = self._dispatch(request, seq, now)
        except Refused as refusal:
            reply = _Reply(refusal.iin)
        return None if silent and reply.then is None else reply

    def _dispatch(self, request: Request, seq: int, now: float) -> _Reply:
        function = request.function
        if self.files is not None and self.files.serves(request):
            return _Reply(body=self.files.answer(request))
        if function is F.READ:
            if request.undecoded:
                bad = request.undecoded[0]
                raise Refused(IIN.PARAMETER_ERROR, bad.reason)
            parts, iin = plan_read(self.database, request.headers, self.config.range_gaps)
            return _Reply(iin, parts=parts)
        if function in _CONTROLS:
            return self._controls(request, _CONTROLS[function], seq, now)
        if function is F.WRITE:
            for action in plan_write(request, self.database, now, self._clear_restart):
                action()
            return _Reply()
        if function in _FREEZES:
            indexes = plan_freeze(request, self.database)
            clear = function in (F.FREEZE_CLEAR, F.FREEZE_CLEAR_NR)
            self.database.freeze(indexes, clear=clear, now=now)
            return _Reply()
        if function is F.ASSIGN_CLASS:
            for action in plan_assign_class(request, self.database):
                action()
            return _Reply()
        if function in (F.ENABLE_UNSOLICITED, F.DISABLE_UNSOLICITED):
            if not self.config.unsolicited:
                raise Refused(IIN.FUNC_NOT_SUPPORTED, "unsolicited reporting is not allowed")
            classes = unsolicited_classes(request)
            if function is F.ENABLE_UNSOLICITED:
                self.unsolicited_enabled |= classes
            else:
                self.unsolicited_enabled -= classes
            return _Reply()
        if function is F.DELAY_MEASURE:
            return _Reply(body=encode_objects(52, 2, [Item(None, 0)]))
        if function is F.RECORD_CURRENT_TIME:
            self.database.clock.recorded_ms = self.database.clock.ms(now)
            return _Reply()
        if function in (F.COLD_RESTART, F.WARM_RESTART):
            cold = function is F.COLD_RESTART
            delay = (
                encode_objects(52, 1, [Item(None, self.config.cold_restart_delay_s)])
                if cold
                else encode_objects(52, 2, [Item(None, self.config.warm_restart_delay_ms)])
            )
            return _Reply(body=delay, then=lambda: self._restart(cold, now))
        raise Refused(IIN.FUNC_NOT_SUPPORTED, f"{function.name} is not served")

    def _controls(self, request: Request, mode: Mode, seq: int, now: float) -> _Reply:
        commands = read_commands(request)
        count = len(commands.commands)
        if count > self.config.max_controls:
            statuses = [CommandStatus.TOO_MANY_OBJS] * count
            if mode == "operate":
                self.select.disarm()
        elif mode == "operate":
            verdict = self.select.check(seq, commands.objects, now)
            if verdict is CommandStatus.SUCCESS:
                statuses = [self.device.control(c, mode, now) for c in commands.commands]
            else:
                statuses = [verdict] * count
        else:
            statuses = [self.device.control(c, mode, now) for c in commands.commands]
            if mode == "select" and all(s is CommandStatus.SUCCESS for s in statuses):
                self.select.arm(seq, commands.objects, now)
        return _Reply(body=echo(request, commands, statuses))

    def _clear_restart(self) -> None:
        self.restarted = False

    def _restart(self, cold: bool, now: float) -> list[bytes]:
        """Carry out a restart once its response is on its way."""
        self._abandon()
        if self._unsolicited is not None:
            self._release(self._unsolicited.token)
            self._unsolicited = None
        self.select.disarm()
        self.device.restart(cold, now)
        self.database.clock.unsynchronize()
        self.restarted = True
        self.unsolicited_enabled = set(self.config.unsolicited_classes)
        self._last_request = self._last_response = None
        return self._start_unsolicited(now) if self.connected else []

    # -- responses -----------------------------------------------------------------------
    def iin(self, now: float) -> IIN:
        """The indications every response carries now."""
        iin = IIN(0)
        if self.restarted:
            iin |= IIN.DEVICE_RESTART
        if self.database.clock.need_time(now):
            iin |= IIN.NEED_TIME
        events = self.database.events
        for event_class, bit in CLASS_EVENTS.items():
            if events.waiting_count(event_class):
                iin |= bit
        if self._files is not None and self._files.waiting():
            iin |= CLASS_EVENTS[self._files.event_class]
        if events.overflow:
            iin |= IIN.EVENT_BUFFER_OVERFLOW
        if self._broadcast is not None:
            iin |= IIN.BROADCAST
        return iin

    def _single(self, seq: int, extra: IIN, body: bytes, now: float) -> list[bytes]:
        confirm = self._broadcast == _CONFIRM_BROADCAST
        control = AppControl(True, True, confirm, False, seq)
        fragment = encode_response(control, F.RESPONSE, self.iin(now) | extra, body)
        self._reported_broadcast(confirm, seq, 0, now)
        if not confirm:
            self._last_response = fragment
        return self.channel.send(fragment)

    def _next_fragment(self, seq: int, first: bool, extra: IIN, now: float) -> list[bytes]:
        writer = self._writer
        assert writer is not None
        token = self._token()
        written = writer.write(token, now)
        last = writer.done
        confirm_broadcast = self._broadcast == _CONFIRM_BROADCAST
        confirm = written.holds or not last or confirm_broadcast
        control = AppControl(first, last, confirm, False, seq)
        fragment = encode_response(control, F.RESPONSE, self.iin(now) | extra, written.body)
        self._reported_broadcast(confirm_broadcast, seq, token, now)
        if confirm:
            self._solicited = _Awaiting(
                seq,
                token,
                now + self.config.confirm_timeout,
                fragment,
                broadcast=confirm_broadcast,
            )
        if last and not confirm:
            self._writer = None
        return self.channel.send(fragment)

    def _reported_broadcast(self, confirm: bool, seq: int, token: int, now: float) -> None:
        """A response reported the broadcast: it is forgotten now, or on the confirm when the
        broadcast asked for one."""
        if self._broadcast is None:
            return
        if confirm:
            if self._solicited is None:
                self._solicited = _Awaiting(
                    seq, token, now + self.config.confirm_timeout, b"", broadcast=True
                )
            return
        self._broadcast = None

    def _confirm(self, control: AppControl, now: float) -> list[bytes]:
        if control.uns:
            waiting = self._unsolicited
            if waiting is None or control.seq != waiting.seq:
                return []
            self._retire(waiting.token)
            self._unsolicited = None
            self._unsolicited_ready = True
            return self._maybe_unsolicited(now)
        waiting = self._solicited
        if waiting is None or control.seq != waiting.seq:
            return []
        self._retire(waiting.token)
        self._solicited = None
        if waiting.broadcast:
            self._broadcast = None
        writer = self._writer
        if writer is not None and not writer.done:
            return self._next_fragment((waiting.seq + 1) & 0x0F, False, IIN(0), now)
        self._writer = None
        return self._maybe_unsolicited(now)

    def _abandon(self) -> None:
        """The rest of a solicited response will not be sent; its events wait again (or are
        forgotten, by the deviation ``forget_unconfirmed_events``)."""
        if self._solicited is not None:
            if FORGET_UNCONFIRMED_EVENTS in self.config.misbehave:
                self._retire(self._solicited.token)
            else:
                self._release(self._solicited.token)
            self._solicited = None
        self._writer = None

    def _retire(self, token: int) -> None:
        self.database.events.retire(token)
        if self._files is not None:
            self._files.retire(token)

    def _release(self, token: int) -> None:
        self.database.events.release(token)
        if self._files is not None:
            self._files.release(token)

    def _token(self) -> int:
        self._tokens += 1
        return self._tokens

    # -- unsolicited ---------------------------------------------------------------------
    def _start_unsolicited(self, now: float) -> list[bytes]:
        self._unsolicited_ready = False
        if not self.config.unsolicited:
            return []
        return self._send_unsolicited(b"", 0, now, null=True)

    def _maybe_unsolicited(self, now: float) -> list[bytes]:
        if (
            not self.connected
            or not self._unsolicited_ready
            or self._unsolicited is not None
            or self._solicited is not None
            or self._writer is not None
            or not self.unsolicited_enabled
        ):
            return []
        classes = frozenset(self.unsolicited_enabled)
        events = self.database.events
        files = self._files if self._files and self._files.event_class in classes else None
        if not any(events.waiting_count(c) for c in classes) and not (files and files.waiting()):
            return []
        token = self._token()
        room = self.config.max_fragment - _HEADER
        written = FragmentWriter(self.database, [EventPart(classes)], room, now, files).write(
            token, now
        )
        if not written.holds:
            return []
        return self._send_unsolicited(written.body, token, now, null=False)

    def _send_unsolicited(self, body: bytes, token: int, now: float, *, null: bool) -> list[bytes]:
        seq = self._unsolicited_seq
        self._unsolicited_seq = (seq + 1) & 0x0F
        control = AppControl(True, True, True, True, seq)
        fragment = encode_response(control, F.UNSOLICITED_RESPONSE, self.iin(now), body)
        self._unsolicited = _Awaiting(
            seq, token, now + self.config.unsolicited_retry, fragment, null=null
        )
        return self.channel.send(fragment)


_CONTROLS: dict[FunctionCode, Mode] = {
    F.SELECT: "select",
    F.OPERATE: "operate",
    F.DIRECT_OPERATE: "direct",
    F.DIRECT_OPERATE_NR: "direct_no_ack",
}
_FREEZES = frozenset({F.IMMED_FREEZE, F.IMMED_FREEZE_NR, F.FREEZE_CLEAR, F.FREEZE_CLEAR_NR})
