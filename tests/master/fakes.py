"""A session that replays literal response octets, for the operations written against
:class:`gridwire.master.session_protocol.SessionLike` (controls, time synchronization).

It numbers requests as the real session does (application sequence from 0, modulo 16),
applies the wire gate, records every request fragment it was asked to send, and answers each
request that expects a response with the next scripted :class:`Reply`: response fragments
given as octets (parsed by the protocol core, their sequence numbers checked against the
request's) or nothing (a timeout). It never sends a request twice, so a test can count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gridwire.dnp3 import requests
from gridwire.dnp3.app.fragments import Response, parse_response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.errors import ConnectionFailed
from gridwire.master import gate
from gridwire.master.records import Outcome, exchange_record
from gridwire.master.session_protocol import Body, ExchangeResult
from gridwire.process.clock import wall_ms


class FakeClock:
    """A clock (:class:`gridwire.process.clock.Clock`, seconds) that moves only when told."""

    def __init__(self, wall: float = 1_700_000_000.0, monotonic: float = 100.0) -> None:
        self.seconds = wall
        self.mono = monotonic

    def wall(self) -> float:
        return self.seconds

    def monotonic(self) -> float:
        return self.mono

    def advance(self, ms: float) -> None:
        self.seconds += ms / 1000.0
        self.mono += ms / 1000.0


@dataclass
class Reply:
    """The answer to one request: response fragments (octets) arriving ``after_ms`` after the
    request was sent; none is a timeout. A last fragment without FIN is a timeout too, with
    what arrived kept."""

    fragments: list[bytes] = field(default_factory=list)
    after_ms: float = 5.0


TIMEOUT = Reply()


@dataclass
class Sent:
    function: FunctionCode
    body: bytes
    sequence: int
    fragment: bytes
    task: str | None
    broadcast: int | None


class FakeSession:
    """Implements SessionLike over a script of replies."""

    def __init__(
        self,
        replies: list[Reply] | None = None,
        *,
        allow_control: bool = True,
        connected: bool = True,
        clock: FakeClock | None = None,
        name: str = "fake",
    ) -> None:
        self.name = name
        self.allow_control = allow_control
        self.clock = clock or FakeClock()
        self.connected = connected
        self.replies = list(replies or [])
        self.sent: list[Sent] = []
        self.queued_ms = 0.0  # how long each request waits for its turn before it is sent
        self._seq = 0

    async def exchange(
        self,
        function: FunctionCode,
        body: Body = b"",
        *,
        task: str | None = None,
        broadcast: int | None = None,
    ) -> ExchangeResult:
        gate.check(function, self.allow_control)
        if not self.connected:
            raise ConnectionFailed(f"outstation {self.name} is not connected")
        # The request waits its turn (behind one in flight), then its body is built.
        self.clock.advance(self.queued_ms)
        if callable(body):
            body = body()
        seq, self._seq = self._seq, (self._seq + 1) & 0x0F
        fragment = requests.request(seq, function, body)
        self.sent.append(Sent(function, body, seq, fragment, task, broadcast))
        started = self.clock.monotonic()
        sent_ms = wall_ms(self.clock)
        responses: list[Response] = []
        received_ms = None
        outcome: Outcome = "sent"
        if broadcast is None and function.expects_response:
            if not self.replies:
                raise AssertionError(f"no reply scripted for {function.name} seq {seq}")
            reply = self.replies.pop(0)
            self.clock.advance(reply.after_ms)
            for n, octets in enumerate(reply.fragments):
                response = parse_response(octets)
                expected = (seq + n) & 0x0F
                assert response.control.seq == expected, (
                    f"scripted fragment has sequence {response.control.seq}, not {expected}"
                )
                responses.append(response)
            if responses:
                received_ms = wall_ms(self.clock)
            complete = bool(responses) and responses[-1].control.fin
            outcome = "complete" if complete else "timeout"
        elapsed_ms = (self.clock.monotonic() - started) * 1000.0
        record = exchange_record(
            function.name, task, seq, outcome, fragment, responses, elapsed_ms, broadcast=broadcast
        )
        return ExchangeResult(record, responses, sent_ms, received_ms)
