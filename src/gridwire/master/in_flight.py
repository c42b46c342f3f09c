"""The request a session has in flight: its transaction, what a retry sends again, the future
its caller awaits, what arrived and when, and the timer (:class:`~gridwire.master.session.Session`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from gridwire.dnp3.app.fragments import Response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.objects.records import DnpObject
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
    objects: list[DnpObject] = field(default_factory=list)
    """The objects of every response in ``responses``, in order (see :meth:`took`)."""
    sent_ms: float | None = None
    received_ms: float | None = None
    last_received: float | None = None
    timers: Timers | None = None
    timer: Entry | None = None
    """The deadline's entry in ``timers`` (the loop's one heap of timers, D224)."""

    def took(self, response: Response) -> None:
        """Keep a response fragment taken in, and its objects in the exchange's one list,
        grown fragment by fragment while the outstation builds the next one rather than
        joined once the last has come (9000 objects of 18 fragments took some 45 us
        there). One fragment's list is the exchange's uncopied; a second makes a list of
        the exchange's own, so no response's list is ever changed."""
        responses = self.responses
        responses.append(response)
        if len(responses) == 1:
            self.objects = response.objects
        elif len(responses) == 2:
            self.objects = self.objects + response.objects
        else:
            self.objects += response.objects

    def finish(self) -> None:
        """Wake the caller (the transaction has ended) and stop the timer."""
        if not self.future.done():
            self.future.set_result(None)
        if self.timer is not None and self.timers is not None:
            self.timers.cancel(self.timer)
        self.timer = None
