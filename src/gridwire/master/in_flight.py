"""The request a session has in flight: its transaction, what a retry sends again, the future
its caller awaits, what arrived and when, and the timer (:class:`~gridwire.master.session.Session`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from gridwire.dnp3.app.fragments import Response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.master.exchange import Transaction
from gridwire.process.timers import Entry, Timers


@dataclass(slots=True, eq=False)
class InFlight:
    """The request in flight as the session holds it: its transaction (the rules' side), what
    a retry sends again, the future its caller awaits, what arrived and when, the timer."""

    transaction: Transaction
    function: FunctionCode
    body: bytes
    future: asyncio.Future[None]
    responses: list[Response] = field(default_factory=list)
    sent_ms: float | None = None
    received_ms: float | None = None
    last_received: float | None = None
    timers: Timers | None = None
    timer: Entry | None = None
    """The deadline's entry in ``timers`` (the loop's one heap of timers, D224)."""

    def finish(self) -> None:
        """Wake the caller (the transaction has ended) and stop the timer."""
        if not self.future.done():
            self.future.set_result(None)
        if self.timer is not None and self.timers is not None:
            self.timers.cancel(self.timer)
        self.timer = None
