"""The confirmation deviation checks: CONFIRM-001, -002 and -003, one function,
:func:`events_kept`, told by the catalogue which deviation it applies.

An outstation keeps the events a response carried until the master confirms that response
(IEEE 1815-2012 clause 4): a confirmation withheld, one with another sequence number, or one
that arrives after the master's next request confirms nothing, so the next poll must report
those events again. Each check, with the master holding the outstation:

1. Needs the master to confirm (the outstation's ``confirm`` setting; not under ``manual``).
2. With the deviation on, polls the events (classes 1, 2 and 3) every 0.5 s until a response
   carries some; none within ``settle`` -> not_applicable.
3. That response asked for confirmation (CON); polled again at once: every event of the
   first poll is reported again (the same object, value, flags and time). When the events
   fill more than one fragment, the first asks for confirmation before the next, which the
   deviation keeps from coming: a poll with the deviation on ends as that first fragment
   arrives (not at the response timeout), and its events are the ones judged.
4. ``late_confirmation``: the confirmations are written :data:`LATE` seconds after their
   response, so the first leaves after the second poll has (the trace must show it did); the
   check waits until both have gone.
5. Deviation off: polled, and what came is confirmed; polled once more: no event reported
   so far that carries a time comes back. Events without a time (or with the zero time
   opendnp3 gives an event it was not given one for) cannot be told from a new event of the
   same value: a note says how many there were.

A pass says what was seen: "12 events reported again after their confirmation was withheld;
3 events confirmed with the deviation off; none of the 15 reported with a time came back".
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from gridwire.der.points import KIND_OF_TYPE, spelled
from gridwire.dnp3.objects.records import DnpObject
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.frames import (
    Begun,
    confirms_of,
    first_request,
    fragments,
    responses_to,
)
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import RETRY_INTERVAL
from gridwire.master.scans import scan_body

LATE: Final = 0.5
"""Seconds a late confirmation is held back: the next poll leaves within milliseconds of the
response it answers, so the confirmation comes after it (checked in the trace)."""
_SHOWN: Final = 4

_AFTER: Final = {
    "withhold_confirmation": "after their confirmation was withheld",
    "wrong_confirmation_sequence": "after a confirmation with the wrong sequence number",
    "late_confirmation": "when their confirmation came after the next request",
}

Key = tuple[object, ...]


def key(event: DnpObject) -> Key:
    """What tells one event from another: the object, the point, value, flags and time."""
    flags = tuple(event.flags) if event.flags is not None else None
    return (
        event.type,
        event.group,
        event.variation,
        event.index,
        repr(event.value),
        flags,
        event.time_ms,
    )


def timed(event: DnpObject) -> bool:
    """Whether the event carries a time (not none, not the zero time)."""
    return bool(event.time_ms)


def counted(number: int) -> str:
    """``1 event``, ``2 events``."""
    return f"{number} event" if number == 1 else f"{number} events"


def shown(events: Iterable[DnpObject]) -> str:
    """The first few events, as a detail names them: ``AI537 = 502 at 2026-...Z``."""
    listed = list(events)
    names = [_named(e) for e in listed[:_SHOWN]]
    more = f" and {len(listed) - _SHOWN} more" if len(listed) > _SHOWN else ""
    return ", ".join(names) + more


def _named(event: DnpObject) -> str:
    if event.type in KIND_OF_TYPE and event.index is not None:
        point = spelled(event.type, event.index)
    else:
        point = f"g{event.group}v{event.variation} {event.index}"
    text = f"{point} = {event.value!r}"
    if timed(event):
        assert event.time_ms is not None
        moment = datetime.fromtimestamp(event.time_ms / 1000, UTC)
        text += " at " + moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return text


@dataclass(slots=True)
class Poll:
    """One poll of the events: its sequence number, the events it carried, whether every
    fragment carrying events asked for confirmation, whether the response's last fragment
    came, and its request's first frame as the trace has it."""

    seq: int
    events: list[DnpObject]
    asked: bool
    whole: bool
    request: Begun | None


class Poller:
    """Polls the events of one outstation and reads what went with each poll."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.master = ctx.master
        self.outstation = ctx.outstation

    async def poll(self, what: str, *, confirmed: bool = True) -> Poll:
        """One READ of classes 1, 2 and 3; Failed when it was not answered.

        With ``confirmed`` False (the deviation keeps the confirmation from the outstation) a
        first fragment that asks for confirmation before more fragments (CON without FIN) is
        as much as will come: the outstation waits for the confirmation before the next. The
        poll ends as it arrives, rather than at the response timeout, and the events are
        those that fragment carried."""
        mark = self.master.frame_mark(self.outstation)
        events_mark = self.master.event_mark(self.outstation)
        exchange = asyncio.ensure_future(
            self.master.read_responses(self.outstation, scan_body("events"))
        )
        try:
            while not exchange.done():
                changed = asyncio.ensure_future(self.master.changed(self.outstation))
                await asyncio.wait({exchange, changed}, return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()
                if exchange.done() or confirmed:
                    continue
                partial = self._first_of_many(mark)
                if partial is not None:
                    events = self.master.events_after(self.outstation, events_mark)
                    return Poll(partial.seq, events, True, False, self._request(mark))
            result = exchange.result()
        finally:
            if not exchange.done():
                exchange.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await exchange
        responses = result.responses
        if result.record.outcome != "complete":
            raise Failed(f"no answer to {what} ({result.record.outcome})")
        events = [o for r in responses for o in r.objects if o.event]
        asked = all(r.control.con for r in responses if any(o.event for o in r.objects))
        return Poll(result.record.sequence, events, asked, True, self._request(mark))

    def _request(self, mark: int) -> Begun | None:
        return first_request(fragments(self.ctx.master.trace(self.ctx.outstation, mark)))

    def _first_of_many(self, mark: int) -> Begun | None:
        """The first fragment of the response to the poll sent after ``mark``, when it came
        asking for confirmation before more (CON without FIN)."""
        items = fragments(self.ctx.master.trace(self.ctx.outstation, mark))
        request = first_request(items)
        if request is None:
            return None
        first = next(iter(responses_to(items, request.seq)), None)
        return first if first is not None and first.con and not first.fin else None

    def confirms(self, poll: Poll) -> list[Begun]:
        """The confirmations sent so far with the poll's sequence number, after it."""
        if poll.request is None:
            return []
        since = fragments(self.ctx.master.trace(self.ctx.outstation, poll.request.id))
        return confirms_of(since, poll.seq)


async def events_kept(ctx: CheckContext) -> None:
    """A confirmation deviation check (see the module's notes)."""
    deviation: str = ctx.arg("deviation")
    if not ctx.master.settings(ctx.outstation).confirms:
        raise NotApplicable(
            "the master is set not to confirm (confirm false, or manual): the check needs "
            "it to confirm what the outstation asks it to"
        )
    poller = Poller(ctx)
    ctx.deviate(deviation, LATE if deviation == "late_confirmation" else True)
    first = await _first_events(ctx, poller)
    if not first.asked:
        raise Failed(
            f"the response carrying {len(first.events)} events did not ask for confirmation "
            "(CON clear): the outstation would not know they were received"
        )
    if not first.whole:
        ctx.note(
            f"the events filled more than one fragment: the {len(first.events)} of the first "
            "are judged"
        )
    second = await poller.poll("the second event poll", confirmed=False)
    missing = list((Counter(map(key, first.events)) - Counter(map(key, second.events))).elements())
    if missing:
        gone = [e for e in first.events if key(e) in set(missing)]
        raise Failed(
            f"{len(missing)} of the {len(first.events)} events were not reported again "
            f"{_AFTER[deviation]}: {shown(gone)}"
        )
    if deviation == "late_confirmation":
        await _late_confirmations_gone(poller, first, second)
    ctx.master.deviate(ctx.outstation, {deviation: False})
    third = await poller.poll("the event poll with the deviation off")
    if third.events and not poller.confirms(third):
        raise RuntimeError(
            "the master did not confirm the events of the poll with the deviation off"
        )
    fourth = await poller.poll("the event poll after the confirmation")
    reported = [*first.events, *second.events, *third.events]
    back = set(map(key, fourth.events))
    came_back = {key(e): e for e in reported if timed(e) and key(e) in back}
    if came_back:
        raise Failed(
            f"{len(came_back)} events reported and confirmed came back in the next poll: "
            f"{shown(came_back.values())}"
        )
    untimed = {key(e) for e in reported if not timed(e)}
    if untimed:
        ctx.note(
            f"{len(untimed)} of the events carry no time: whether they came back after the "
            "confirmation cannot be told from a new event of the same value"
        )
    ctx.verified(
        f"{counted(len(first.events))} reported again {_AFTER[deviation]}; "
        f"{counted(len(third.events))} confirmed with the deviation off; none of the "
        f"{len({key(e) for e in reported if timed(e)})} reported with a time came back"
    )


async def _first_events(ctx: CheckContext, poller: Poller) -> Poll:
    """Poll every :data:`RETRY_INTERVAL` seconds until a response carries events;
    NotApplicable when none has within ``settle``."""
    deadline = ctx.clock.monotonic() + ctx.settle
    while True:
        poll = await poller.poll("the event poll", confirmed=False)
        if poll.events:
            return poll
        if ctx.clock.monotonic() + RETRY_INTERVAL > deadline:
            raise NotApplicable(f"no event was reported within settle ({ctx.settle:g} s)")
        await asyncio.sleep(RETRY_INTERVAL)


async def _late_confirmations_gone(poller: Poller, first: Poll, second: Poll) -> None:
    """Wait until the late confirmations of both polls have been written, and make sure the
    first left after the second poll's request (else the check tested nothing)."""
    clock = poller.ctx.clock
    deadline = clock.monotonic() + LATE + 2.0
    while not (poller.confirms(first) and poller.confirms(second)):
        if clock.monotonic() > deadline:
            raise RuntimeError("the late confirmations were not written within 2.5 s")
        await asyncio.sleep(0.05)
    confirm = poller.confirms(first)[0]
    if second.request is None or confirm.id < second.request.id:
        raise RuntimeError(
            "the late confirmation left before the next request (the machine was too slow "
            "to send the next poll within the delay): nothing was tested"
        )
