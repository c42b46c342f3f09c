"""The link and transport deviation checks: LINK-001 to LINK-004, TRANSPORT-001 and -002.

Each is one function, :func:`probe`, told by the catalogue which deviation it applies and how
many probes after it the outstation has to answer again (3 for a link deviation, 1 for a
transport one). A probe is one READ of the most preferred served point (:func:`probe_point`).

1. Before: two probes, each answered within the outstation's ``response_timeout``. The
   quicker round trip sets the window of the probes to come (:func:`window`).
2. With the deviation: one probe, waited for one window; then the deviation is off.
3. After: up to ``probes`` probes, each waited for one window but the last, which is given
   the whole ``response_timeout``: one of them must be answered (an answer that comes after
   its window, before the next probe's, counts).
4. The deviated probe must have gone unanswered (for ``orphan_segment``: the orphan segment
   must have, so the request that follows it intact is answered exactly once).

A pass says so, with the figures: "the probe (a READ of AI0): answered in 3 ms before; sent
with a bad header CRC: unanswered (waited 0.25 s, no answer later); answered again at probe 1
of 3 after".

Why the short window is enough to judge step 4: an outstation answers requests in the order
they come, so any answer to the deviated probe arrives before the answer to a probe sent
after it. The check therefore counts the answers the trace holds from the deviated probe up
to the first probe answered after it (:mod:`gridwire.evaluate.families.frames`), not only
those that came within the window: a late answer still fails the check. The window decides
only how soon the next probe goes, so the six checks take about a second or two in all (a
slow outstation makes the window longer, never the verdict different).

The probe's size: its range header is repeated until the frame is at least
:data:`PROBE_FRAME` octets. A link layer that trusts a header's LENGTH reads on until the
octets it claims have come (opendnp3's does), so after a frame claiming the most a frame can
(292 octets, ``overstate_length``) it swallows whatever follows up to that count. Three
probes of at least 98 octets carry more than 292: such an outstation is back on its feet by
the third probe, which is what "answered again within 3 probes" allows; with a 20-octet
probe it would need fourteen.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Final

from gridwire.der.points import Kind, Point
from gridwire.dnp3.app.headers import range_header
from gridwire.dnp3.link import MAX_FRAME, MIN_LENGTH, frame_size
from gridwire.evaluate.context import CheckContext
from gridwire.evaluate.families.frames import Begun, first_request, fragments, responses_to
from gridwire.evaluate.outcomes import Failed, NotApplicable
from gridwire.master.scans import POINT_GROUPS

WINDOW_FLOOR: Final = 0.25
"""Seconds a probe is waited for at least (a loaded machine can take a few tens of ms)."""
WINDOW_ROUND_TRIPS: Final = 10
"""A probe is waited for this many round trips (the quicker of the probes before)."""
PROBES_BEFORE: Final = 2
"""Probes before the deviation: each must be answered; the quicker sets the window (one
alone, slowed by a busy machine, can make it ten times too long)."""
PROBE_FRAME: Final = -(-MAX_FRAME // 3)
"""Octets a probe's frame takes at least: three of them carry the longest frame (98)."""
PREFERENCE: Final = (Kind.AI, Kind.BI, Kind.CTR, Kind.AO, Kind.BO)
"""Kinds of point a probe reads, most preferred first (inputs: plain measurements)."""
_APP_AND_TRANSPORT: Final = 3  # transport header, application control, function code

_WHAT: Final = {
    "corrupt_header_crc": "with a bad header CRC",
    "corrupt_body_crc": "with a bad data CRC",
    "truncate": "cut short",
    "overstate_length": "with its length overstated",
    "orphan_segment": "after a segment with no first",
    "endless_series": "as a series of segments that never ends",
}


def probe_point(ctx: CheckContext) -> Point:
    """The most preferred served point: the first kind of :data:`PREFERENCE` the outstation
    serves a point of, its lowest index. NotApplicable when it serves none."""
    for kind in PREFERENCE:
        served = ctx.served_points(ctx.point_map.by_kind(kind))
        if served:
            return min(served, key=lambda p: p.index)
    raise NotApplicable("the outstation serves none of its profile's points: nothing to read")


def probe_body(point: Point) -> bytes:
    """The object headers of a probe: the point's range header (variation 0), repeated until
    the request's frame is at least :data:`PROBE_FRAME` octets."""
    header = range_header(POINT_GROUPS[point.kind.type_name], 0, point.index, point.index)
    count = 1
    while frame_size(MIN_LENGTH + _APP_AND_TRANSPORT + count * len(header)) < PROBE_FRAME:
        count += 1
    return header * count


def window(round_trip: float, timeout: float) -> float:
    """How long a probe is waited for: :data:`WINDOW_ROUND_TRIPS` round trips, at least
    :data:`WINDOW_FLOOR`, at most ``timeout`` (the outstation's response_timeout)."""
    return min(timeout, max(WINDOW_FLOOR, WINDOW_ROUND_TRIPS * round_trip))


@dataclass(frozen=True, slots=True)
class Probe:
    """One probe sent: ``answered`` within its wait, the request's first frame as the trace
    has it (None when nothing was sent), the seconds waited."""

    answered: bool
    outcome: str
    request: Begun | None
    seconds: float


class Prober:
    """Sends probes of one point and reads their answers from the trace."""

    def __init__(self, ctx: CheckContext, point: Point) -> None:
        self.ctx = ctx
        self.body = probe_body(point)
        self.what = f"the probe (a READ of {point.address})"
        self.timeout = ctx.master.settings(ctx.outstation).response_timeout
        self.start = ctx.master.frame_mark(ctx.outstation)

    async def send(self, wait: float | None) -> Probe:
        """One probe, waited for ``wait`` seconds (None: the session's own response timeout;
        a probe given up sooner is abandoned, never sent again)."""
        master, clock = self.ctx.master, self.ctx.clock
        mark = master.frame_mark(self.ctx.outstation)
        started = clock.monotonic()
        exchange = master.read_responses(self.ctx.outstation, self.body)
        try:
            result = await (exchange if wait is None else asyncio.wait_for(exchange, wait))
            outcome: str = result.record.outcome
        except TimeoutError:
            outcome = "unanswered"
        seconds = clock.monotonic() - started
        request = first_request(fragments(self.ctx.master.trace(self.ctx.outstation, mark)))
        return Probe(outcome == "complete", outcome, request, seconds)

    def answers(self, probe: Probe) -> list[Begun]:
        """The responses received so far carrying the probe's sequence number, after it."""
        if probe.request is None:
            return []
        since = fragments(self.ctx.master.trace(self.ctx.outstation, probe.request.id))
        return responses_to(since, probe.request.seq)


async def probe(ctx: CheckContext) -> None:
    """A link or transport deviation check (see the module's notes)."""
    deviation: str = ctx.arg("deviation")
    chances: int = ctx.arg("probes")
    prober = Prober(ctx, probe_point(ctx))
    what = prober.what
    round_trips = []
    for _ in range(PROBES_BEFORE):
        before = await prober.send(None)
        if not before.answered:
            raise Failed(f"{what} was not answered before the deviation ({before.outcome})")
        round_trips.append(before.seconds)
    wait = window(min(round_trips), prober.timeout)
    ctx.deviate(deviation)
    deviated = await prober.send(wait)
    ctx.master.deviate(ctx.outstation, {deviation: False})
    if deviated.request is None:
        raise Failed(f"{what} {_WHAT[deviation]}: no request was sent")
    answered_at = await _answered_again(prober, chances, wait)
    if answered_at is None:
        raise Failed(
            f"{what} was not answered again within {_probes(chances)} after the deviation "
            f"was turned off (the last waited {prober.timeout:g} s)"
        )
    _judge(ctx, prober, deviation, deviated)
    during = f"sent {_WHAT[deviation]}: " + (
        "answered once"
        if deviation == "orphan_segment"
        else f"unanswered (waited {wait:.2f} s, no answer later)"
    )
    ctx.verified(
        f"{what}: answered in {min(round_trips) * 1000:.0f} ms before; {during}; answered "
        f"again at probe {answered_at} of {chances} after"
    )


async def _answered_again(prober: Prober, chances: int, wait: float) -> int | None:
    """Which of the probes after the deviation was answered first (1-based), or None."""
    sent: list[Probe] = []
    for number in range(1, chances + 1):
        late = next((n for n, p in enumerate(sent, 1) if prober.answers(p)), None)
        if late is not None:
            return late
        last = number == chances
        after = await prober.send(None if last else wait)
        sent.append(after)
        if after.answered:
            return number
    return next((n for n, p in enumerate(sent, 1) if prober.answers(p)), None)


def _judge(ctx: CheckContext, prober: Prober, deviation: str, deviated: Probe) -> None:
    """Failed when the deviated probe drew an answer it must not have (see the notes)."""
    assert deviated.request is not None
    what = f"{prober.what} {_WHAT[deviation]}"
    answers = prober.answers(deviated)
    sent_ms = deviated.request.time_ms
    if deviation == "orphan_segment":
        if not answers:
            raise Failed(f"{what} was not answered: the request followed the orphan intact")
        if len(answers) > 1:
            raise Failed(
                f"{what} was answered {len(answers)} times (sequence {deviated.request.seq}): "
                "the orphan segment was taken as a request"
            )
        return
    if answers:
        late = answers[0].time_ms - sent_ms
        raise Failed(
            f"{what} was answered (response sequence {answers[0].seq}, {late:.0f} ms after "
            "it was sent): the outstation took a frame it must discard"
        )


def _probes(count: int) -> str:
    return "1 probe" if count == 1 else f"{count} probes"
