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
   first poll is reported again (the same object, value, flags and time).
4. ``late_confirmation``: the confirmations are written :data:`LATE` seconds after their
   response, so the first leaves after the second poll has (the trace must show it did); the
   check waits until both have gone.
5. Deviation off: polled, and what came is confirmed; polled once more: no event reported
   so far that carries a time comes back. Events without a time (or with the zero time
   opendnp3 gives an event it was not given one for) cannot be told from a new event of the
   same value: a note says how many there were.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from gridwire.dnp3.app.functions import FunctionCode
from gridwire.dnp3.objects.records import DnpObject
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.frames import Begun, confirms_of, first_request, fragments
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.evaluate.primitives import RETRY_INTERVAL
from gridwire.master.scans import scan_body
from gridwire.master.session_protocol import ExchangeResult

LATE: Final = 0.5
"""Seconds a late confirmation is held back: the next poll leaves within milliseconds of the
response it answers, so the confirmation comes after it (checked in the trace)."""
_SHOWN: Final = 4
_KINDS: Final = {"ai": "AI", "bi": "BI", "ao": "AO", "bo": "BO", "counter": "CTR", "frozen": "CTR"}

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


def shown(events: Iterable[DnpObject]) -> str:
    """The first few events, as a detail names them: ``AI537 = 502 at 2026-...Z``."""
    listed = list(events)
    names = [_named(e) for e in listed[:_SHOWN]]
    more = f" and {len(listed) - _SHOWN} more" if len(listed) > _SHOWN else ""
    return ", ".join(names) + more


def _named(event: DnpObject) -> str:
    kind = _KINDS.get(event.type or "")
    point = f"{kind}{event.index}" if kind else f"g{event.group}v{event.variation} {event.index}"
    text = f"{point} = {event.value!r}"
    if timed(event):
        assert event.time_ms is not None
        moment = datetime.fromtimestamp(event.time_ms / 1000, UTC)
        text += " at " + moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return text


@dataclass(slots=True)
class Poll:
    """One poll of the events: its exchange, the events it carried, and its request's first
    frame as the trace has it."""

    result: ExchangeResult
    events: list[DnpObject]
    request: Begun | None

    @property
    def seq(self) -> int:
        return self.result.record.sequence

    @property
    def asked(self) -> bool:
        """Whether every fragment that carried events asked for confirmation."""
        return all(r.control.con for r in self.result.responses if any(o.event for o in r.objects))


class Poller:
    """Polls the events of one outstation and reads what went with each poll."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self.session = ctx.master.session(ctx.outstation)

    async def poll(self, what: str) -> Poll:
        """One READ of classes 1, 2 and 3. Failed when it was not answered, unless the first
        fragment came and asks for confirmation before the rest (which a confirmation
        withheld keeps from coming)."""
        mark = self.session.frames.last_id
        result = await self.session.exchange(FunctionCode.READ, scan_body("events"))
        record = result.record
        responses = result.responses
        waits_for_us = bool(responses) and responses[-1].control.con
        if record.outcome != "complete" and not waits_for_us:
            raise Failed(f"no answer to {what} ({record.outcome})")
        events = [o for r in responses for o in r.objects if o.event]
        frames = fragments(self.ctx.master.trace(self.ctx.outstation, mark))
        return Poll(result, events, first_request(frames))

    def confirms(self, poll: Poll) -> list[Begun]:
        """The confirmations sent so far with the poll's sequence number, after it."""
        if poll.request is None:
            return []
        since = fragments(self.ctx.master.trace(self.ctx.outstation, poll.request.id))
        return confirms_of(since, poll.seq)


async def events_kept(ctx: CheckContext) -> None:
    """A confirmation deviation check (see the module's notes)."""
    deviation: str = ctx.arg("deviation")
    session = ctx.master.session(ctx.outstation)
    if not session.settings.confirms:
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
    if not first.result.responses[-1].control.fin:
        ctx.note("the events filled more than one fragment: the first is judged")
    second = await poller.poll("the second event poll")
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
    ctx.note(
        f"{len(first.events)} events reported again {_AFTER[deviation]}; "
        f"{len(third.events)} confirmed with the deviation off"
    )


async def _first_events(ctx: CheckContext, poller: Poller) -> Poll:
    """Poll every :data:`RETRY_INTERVAL` seconds until a response carries events;
    NotApplicable when none has within ``settle``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ctx.settle
    while True:
        poll = await poller.poll("the event poll")
        if poll.events:
            return poll
        if loop.time() + RETRY_INTERVAL > deadline:
            raise NotApplicable(f"no event was reported within settle ({ctx.settle:g} s)")
        await asyncio.sleep(RETRY_INTERVAL)


async def _late_confirmations_gone(poller: Poller, first: Poll, second: Poll) -> None:
    """Wait until the late confirmations of both polls have been written, and make sure the
    first left after the second poll's request (else the check tested nothing)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LATE + 2.0
    while not (poller.confirms(first) and poller.confirms(second)):
        if loop.time() > deadline:
            raise RuntimeError("the late confirmations were not written within 2.5 s")
        await asyncio.sleep(0.05)
    confirm = poller.confirms(first)[0]
    if second.request is None or confirm.id < second.request.id:
        raise RuntimeError(
            "the late confirmation left before the next request (the machine was too slow "
            "to send the next poll within the delay): nothing was tested"
        )
