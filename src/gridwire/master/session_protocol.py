"""What an operation needs of an outstation's session, as a Protocol.

Operations that are pure logic around exchanges (controls, time synchronization) are written
against this, so they can be tested with a session that replays literal octets and run by
the master's real session unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias

from gridwire.dnp3.app.fragments import Response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master.records import Exchange
from gridwire.process.clock import Clock

Body: TypeAlias = bytes | Callable[[], bytes]
"""A request's object headers and data, or a function that builds them. The session calls
the function when the request is about to leave, after any wait for the request before it, so
a body that holds the master's clock carries the time it was sent, not the time it was asked
for."""


@dataclass(slots=True)
class ExchangeResult:
    """An exchange as its record, plus what the operations built on it must know.

    ``sent_ms`` is the wall-clock time the request's last octet was handed to the
    connection; ``received_ms`` the wall-clock time the first response fragment arrived
    (None when none did). ``responses`` are the parsed response fragments in order.
    ``notes`` name, in order, what arrived for the request that broke the application
    layer's rules (:mod:`gridwire.master.exchange`: a response with the wrong sequence
    number, a first fragment without FIR...), for a caller judging the outstation.
    """

    record: Exchange
    responses: list[Response]
    sent_ms: float | None
    received_ms: float | None
    notes: list[str] = field(default_factory=list)


class SessionLike(Protocol):
    """One outstation as an operation sees it."""

    name: str
    allow_control: bool
    clock: Clock

    async def exchange(
        self,
        function: FunctionCode,
        body: Body = b"",
        *,
        task: str | None = None,
        broadcast: int | None = None,
    ) -> ExchangeResult:
        """Send one request (the session picks the sequence number) and wait for its end.
        A callable ``body`` is called once, just before the request leaves.

        Never sends the request twice (only a READ that timed out with nothing received is
        repeated, and only as the outstation's ``read_retries`` allow). Raises
        ConnectionFailed when there is no connection, NotAllowed when the function commands
        and control is not allowed.
        """
        ...
