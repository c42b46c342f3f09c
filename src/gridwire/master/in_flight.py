"""The request a session has in flight: its transaction, what a retry sends again, the future
its caller awaits, what arrived and when, the timer (:class:`~gridwire.master.session.Session`),
and who watches the fragments it takes in.

An operation whose answer is the exchange itself (a scan, a read) can have its objects'
JSON made fragment by fragment, while the outstation builds the next one (D235): it sets
:data:`taken_observer` around its call, and each response fragment the request takes in is
handed to that observer once its objects are decoded, named and kept (the CONFIRM has
already left). Nothing else is observed: a fleet's polls, run by their own tasks, never see
an operation's observer, and cost nothing more.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from gridwire.dnp3.app.fragments import Response
from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.exchange import Transaction
from gridwire.process.timers import Entry, Timers

log = logging.getLogger(__name__)

TakenObserver = Callable[[Response], None]
"""Handed each response fragment a request takes in, in order, after its objects are kept.
It must be quick (it runs as the fragment is read) and must not change the objects."""

taken_observer: contextvars.ContextVar[TakenObserver | None] = contextvars.ContextVar(
    "gridwire_taken_observer", default=None
)
"""The observer of the requests made in this context (an operation's call), or None."""


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
    """The objects of every response in ``responses``, in order (see :meth:`take`)."""
    sent_ms: float | None = None
    received_ms: float | None = None
    last_received: float | None = None
    timers: Timers | None = None
    timer: Entry | None = None
    """The deadline's entry in ``timers`` (the loop's one heap of timers, D224)."""
    observer: TakenObserver | None = None
    """Who is handed each response fragment taken in (:data:`taken_observer`), if anyone."""

    def take(self, response: Response) -> None:
        """Keep a response fragment taken in, and its objects in the exchange's one list,
        grown fragment by fragment while the outstation builds the next one rather than
        joined once the last has come (9000 objects of 18 fragments took some 45 us
        there). One fragment's list is the exchange's uncopied; a second makes a list of
        the exchange's own, so no response's list is ever changed. Then hand the fragment
        to the observer, if there is one (D235); what it raises is logged, and the answer
        is then made without its help."""
        responses = self.responses
        responses.append(response)
        if len(responses) == 1:
            self.objects = response.objects
        elif len(responses) == 2:
            self.objects = self.objects + response.objects
        else:
            self.objects += response.objects
        if self.observer is not None:
            try:
                self.observer(response)
            except Exception:
                log.exception("the observer of a response fragment failed")

    def finish(self) -> None:
        """Wake the caller (the transaction has ended) and stop the timer."""
        if not self.future.done():
            self.future.set_result(None)
        if self.timer is not None and self.timers is not None:
            self.timers.cancel(self.timer)
        self.timer = None
