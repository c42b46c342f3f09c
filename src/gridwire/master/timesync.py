"""Setting an outstation's clock: a plain time write, and the two time synchronization
procedures of IEEE 1815-2012.

The procedures (IEEE 1815-2012, the application layer's time synchronization procedures,
with function codes 0x17 DELAY_MEASURE and 0x18 RECORD_CURRENT_TIME as the standard's
function code table describes them; the non-LAN delay formula is on p. 301 of the 2012
edition):

LAN (``lan``)
    The master sends RECORD_CURRENT_TIME and notes the time [A] at which its last octet left;
    the outstation records its own clock when that last octet arrives [B]. The master then
    WRITEs g50v3 (time of last recorded time) holding [A]; the outstation corrects its clock
    by the difference between [A] and [B]. On a LAN the propagation delay is negligible, so
    nothing is measured.
Non-LAN (``non_lan``)
    The master sends DELAY_MEASURE at [A]; the outstation answers with g52 (time delay: v2
    fine, milliseconds; v1 coarse, seconds) holding its turnaround, the time between
    receiving the request and sending the response; the response arrives at [D]. The one-way
    delay is ([D] - [A] - turnaround) / 2. The master then WRITEs g50v1 (absolute time) of
    its clock plus that delay, the time at which the write is expected to arrive. The clock
    is read as the write leaves (:class:`TimeAtSend`), not when it was asked for.

Rules of this module: the write is sent only after the first request was answered
(outcome complete) without an error indication (FUNC_NOT_SUPPORTED, OBJECT_UNKNOWN,
PARAMETER_ERROR); neither request is ever sent again (the session never repeats a request
other than a READ). A DELAY_MEASURE answer without a g52 object leaves nothing to correct
by, so nothing is written. An outstation that reports a turnaround longer than the round
trip measured gives a delay of 0 rather than a negative one.

``accepted`` is True when the write was answered without an error indication, False when
the outstation refused the write or the first request, and None when it never said (a
request timed out or was abandoned, or nothing could be written).
"""

from __future__ import annotations

from typing import Final, Literal

from gridwire.dnp3 import requests
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.app.iin import IIN, REFUSALS
from gridwire.errors import BadParameter
from gridwire.master import gate
from gridwire.master.records import Exchange, TimeSyncResult
from gridwire.master.session_protocol import ExchangeResult, SessionLike
from gridwire.process.clock import Clock, wall_ms

Procedure = Literal["lan", "non_lan"]
PROCEDURES: Final = ("lan", "non_lan")

_DELAY_GROUP: Final = 52
_COARSE: Final = 1  # g52v1: seconds
_FINE: Final = 2  # g52v2: milliseconds


def body_of(fragment: bytes) -> bytes:
    """The object headers and data of a request fragment built by :mod:`gridwire.dnp3
    .requests` (everything after its control and function octets): the session numbers the
    request itself."""
    return fragment[2:]


def answered(result: ExchangeResult) -> bool | None:
    """Whether the outstation took a request: True when it answered to the last fragment
    without an error indication, False when it refused it, None when it never said."""
    record = result.record
    if record.outcome != "complete" or not result.responses:
        return None
    iin: IIN = result.responses[-1].iin
    return not iin & REFUSALS


class TimeAtSend:
    """The body of a WRITE of g50v1, built when the session sends it: the master's clock at
    that moment plus ``delay_ms``. A write queued behind another request so carries the time
    it left, not the time it was asked for. ``time_ms`` is what was written (None until)."""

    def __init__(self, clock: Clock, delay_ms: float = 0.0) -> None:
        self._clock = clock
        self._delay_ms = delay_ms
        self.time_ms: int | None = None

    def __call__(self) -> bytes:
        self.time_ms = round(wall_ms(self._clock) + self._delay_ms)
        return body_of(requests.write_time(0, self.time_ms))


async def write_time(session: SessionLike) -> Exchange:
    """WRITE of g50v1 holding the master's clock as it is sent, with no delay correction."""
    result = await session.exchange(FunctionCode.WRITE, TimeAtSend(session.clock))
    return result.record


def turnaround_ms(result: ExchangeResult) -> float | None:
    """The outstation's turnaround from the g52 object of a DELAY_MEASURE answer."""
    for response in result.responses:
        for obj in response.objects:
            if obj.group != _DELAY_GROUP or not isinstance(obj.value, int):
                continue
            if obj.variation == _FINE:
                return float(obj.value)
            if obj.variation == _COARSE:
                return obj.value * 1000.0
    return None


async def synchronize_time(session: SessionLike, procedure: str = "lan") -> TimeSyncResult:
    """Synchronize the outstation's clock by the ``lan`` or ``non_lan`` procedure."""
    if procedure not in PROCEDURES:
        raise BadParameter(f"procedure {procedure!r} is not one of {', '.join(PROCEDURES)}")
    # Both procedures end in a WRITE of the time; the gate is asked for it before the first
    # request, so a refusal sends nothing (not even non_lan's read-only DELAY_MEASURE).
    gate.check(FunctionCode.WRITE, session.allow_control)
    if procedure == "lan":
        return await _lan(session)
    return await _non_lan(session)


def _not_written(first: ExchangeResult, delay_ms: float | None = None) -> TimeSyncResult:
    took = answered(first)
    return TimeSyncResult(
        written=False,
        accepted=False if took is False else None,
        delay_ms=delay_ms,
        time_ms=None,
        exchanges=[first.record],
    )


def _written(
    first: ExchangeResult, write: ExchangeResult, time_ms: int, delay_ms: float | None
) -> TimeSyncResult:
    return TimeSyncResult(
        written=True,
        accepted=answered(write),
        delay_ms=delay_ms,
        time_ms=time_ms,
        exchanges=[first.record, write.record],
    )


async def _lan(session: SessionLike) -> TimeSyncResult:
    first = await session.exchange(FunctionCode.RECORD_CURRENT_TIME)
    if not answered(first) or first.sent_ms is None:
        return _not_written(first)
    time_ms = round(first.sent_ms)  # [A]: when the RECORD_CURRENT_TIME left
    body = body_of(requests.write_last_recorded_time(0, time_ms))
    write = await session.exchange(FunctionCode.WRITE, body)
    return _written(first, write, time_ms, None)


async def _non_lan(session: SessionLike) -> TimeSyncResult:
    first = await session.exchange(FunctionCode.DELAY_MEASURE)
    if not answered(first) or first.sent_ms is None or first.received_ms is None:
        return _not_written(first)
    turnaround = turnaround_ms(first)
    if turnaround is None:
        return _not_written(first)
    delay_ms = max(0.0, (first.received_ms - first.sent_ms - turnaround) / 2.0)
    body = TimeAtSend(session.clock, delay_ms)
    write = await session.exchange(FunctionCode.WRITE, body)
    assert body.time_ms is not None  # the session built the body to send it
    return _written(first, write, body.time_ms, delay_ms)
