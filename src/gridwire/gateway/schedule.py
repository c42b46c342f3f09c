"""Scheduling of DER events, sans-IO: programs, controls and defaults in, with the time on
each program's FSA offset; the modes to hold and the Responses due out. No clock is read and
nothing is sent here; :class:`Scheduler` keeps one :class:`EventRecord` per event (its
randomization drawn once, its state, the Responses it has owed), which the store persists.

Rules (IEEE 2030.5 section 10.2 and the DER function set's event rules; DESIGN D163):

- Rank: lower primacy (the program's) wins; within the same primacy the later creationTime.
- Superseding, decided per control mode: an event is superseded when an event that ranks
  above it, not cancelled and not over, overlaps its nominal interval and controls every mode
  it controls. It is answered 7 at once and never runs (or stops). An event that shares only
  some modes with a better one runs, and per mode the better event's value holds.
- Randomization: randomizeStart and randomizeDuration each drawn once per event, uniformly
  between 0 and the value given (either sign), from a generator seeded by ``seed`` and the
  event's mRID; kept in the record, so a restart draws nothing new.
- An event runs from start + drawn start to start + duration + drawn duration (end
  excluded), so back-to-back events hand over with no gap.
- Cancellation: currentStatus 2 (or the event gone from its list) ends it at once;
  currentStatus 3 ends it after a draw within randomizeDuration; 4 is the server's superseded.
- On first sight: invalid (253), no mode the DER supports (252), already over (254);
  otherwise received (1). Then started (2), completed (3), cancelled (6), superseded (7); an
  event that ended while the gateway never saw it start (the gateway was down) is answered 254.
- Responses by responseRequired: bit 0 asks for received, bit 1 for the rest; the rejections
  (252, 253, 254) are sent when any bit is set. Each (event, status) at most once.
- Modes no active event holds take the DefaultDERControl of the program of best primacy
  that has one.
- Pruning (:meth:`Scheduler.prune`, DESIGN D203): a record over for the bound, no longer
  listed and owing no Response is dropped.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from gridwire.gateway.resources import (
    CANCELLED,
    CANCELLED_RANDOM,
    SUPERSEDED_BY_SERVER,
    DerControl,
    ModeValue,
    ProgramSet,
)

RECEIVED, STARTED, COMPLETED, CANCELLED_RESPONSE, SUPERSEDED = 1, 2, 3, 6, 7
NOT_APPLICABLE, INVALID, EXPIRED = 252, 253, 254
REJECTIONS = (NOT_APPLICABLE, INVALID, EXPIRED)
FINAL_STATES = ("completed", "cancelled", "superseded", "expired", "invalid", "not_applicable")


@dataclass(slots=True)
class EventRecord:
    """One event as the gateway keeps it."""

    control: DerControl
    program: str
    primacy: int
    fsa: str | None
    start_draw: float
    duration_draw: float
    state: str = "scheduled"  # scheduled, active, or one of FINAL_STATES
    cancel_at: float | None = None
    responses: list[int] = field(default_factory=list)
    finished_at: float | None = None  # when it reached a final state, on its FSA clock

    @property
    def mrid(self) -> str:
        return self.control.mrid

    @property
    def start(self) -> float:
        return self.control.start + self.start_draw

    @property
    def end(self) -> float:
        end = self.control.end + self.duration_draw
        end = max(end, self.start)
        return end if self.cancel_at is None else min(end, self.cancel_at)

    @property
    def rank(self) -> tuple[int, int, str]:
        return (self.primacy, -self.control.creation_time, self.mrid)

    @property
    def final(self) -> bool:
        return self.state in FINAL_STATES


@dataclass(frozen=True, slots=True)
class Target:
    """A mode's value to hold and where it comes from (an event's mRID, or ``default``)."""

    value: ModeValue
    source: str
    program: str


@dataclass(frozen=True, slots=True)
class ResponseDue:
    mrid: str
    reply_to: str
    status: int
    at: float  # on the event's FSA clock


@dataclass(slots=True)
class Decision:
    targets: dict[str, Target]
    responses: list[ResponseDue]
    next_change: float | None  # seconds until the next start or end of an event


def draw(seed: int | str, mrid: str, value: int) -> float:
    """One uniform draw between 0 and ``value`` (either sign), fixed by seed and mRID."""
    if value == 0:
        return 0.0
    low, high = sorted((0, value))
    return round(random.Random(f"{seed}:{mrid}:{value}").uniform(low, high), 3)


class Scheduler:
    def __init__(self, seed: int | str = 0, records: Iterable[EventRecord] = ()) -> None:
        self.seed = seed
        self.records: dict[str, EventRecord] = {r.mrid: r for r in records}
        self._due: list[ResponseDue] = []

    # -- the one entry point ----------------------------------------------------------------

    def update(
        self,
        sets: Sequence[ProgramSet],
        now_of: Callable[[str | None], float],
        supported: Callable[[str], bool] = lambda mode: True,
    ) -> Decision:
        """Take the programs as last polled and the time; return what to hold and send."""
        self._due = []
        listed: set[str] = set()
        for program_set in sets:
            program = program_set.program
            now = now_of(program.fsa)
            for control in program_set.controls:
                listed.add(control.mrid)
                record = self.records.get(control.mrid)
                if record is None:
                    self._receive(control, program_set, now, supported)
                else:
                    self._refresh(record, control, now)
        for record in self.records.values():
            if not record.final and record.mrid not in listed:
                self._cancel(record, now_of(record.fsa))  # gone from its list
        self._supersede(now_of)
        for record in self.records.values():
            self._advance(record, now_of(record.fsa))
        return Decision(self._targets(sets), self._due, self._next_change(now_of))

    # -- steps ------------------------------------------------------------------------------

    def _respond(self, record: EventRecord, status: int, now: float) -> None:
        required = record.control.response_required
        wanted = required & 1 if status == RECEIVED else required & 2
        if status in REJECTIONS:
            wanted = required & 3
        if status in record.responses:
            return
        record.responses.append(status)
        if wanted and record.control.reply_to:
            self._due.append(ResponseDue(record.mrid, record.control.reply_to, status, now))

    def _receive(
        self,
        control: DerControl,
        program_set: ProgramSet,
        now: float,
        supported: Callable[[str], bool],
    ) -> None:
        program = program_set.program
        record = EventRecord(
            control,
            program.href,
            program.primacy,
            program.fsa,
            draw(self.seed, control.mrid, control.randomize_start),
            draw(self.seed, control.mrid, control.randomize_duration),
        )
        self.records[control.mrid] = record
        if control.problems:
            return self._finish(record, "invalid", INVALID, now)
        if not any(supported(mode) for mode in control.modes):
            return self._finish(record, "not_applicable", NOT_APPLICABLE, now)
        if record.end <= now and control.current_status not in (CANCELLED, CANCELLED_RANDOM):
            return self._finish(record, "expired", EXPIRED, now)
        self._respond(record, RECEIVED, now)
        self._refresh(record, control, now)

    def _refresh(self, record: EventRecord, control: DerControl, now: float) -> None:
        record.control = control
        if record.final:
            return
        if control.current_status == CANCELLED:
            self._cancel(record, now)
        elif control.current_status == CANCELLED_RANDOM and record.cancel_at is None:
            record.cancel_at = now + draw(
                self.seed, f"{record.mrid}:cancel", abs(control.randomize_duration)
            )
        elif control.current_status == SUPERSEDED_BY_SERVER:
            self._finish(record, "superseded", SUPERSEDED, now)

    def _cancel(self, record: EventRecord, now: float) -> None:
        self._finish(record, "cancelled", CANCELLED_RESPONSE, now)

    def _finish(self, record: EventRecord, state: str, status: int, now: float) -> None:
        record.state = state
        record.finished_at = now
        self._respond(record, status, now)

    def prune(
        self,
        now_of: Callable[[str | None], float],
        keep: float,
        listed: set[str],
        owed: set[str],
    ) -> list[str]:
        """Drop the records of events over for ``keep`` seconds or more, no longer listed by
        the head-end and owing no Response; their mRIDs. A final record without a finishing
        time (kept by an earlier version) is given the present as one."""
        dropped = []
        for mrid, record in self.records.items():
            if not record.final:
                continue
            now = now_of(record.fsa)
            if record.finished_at is None:
                record.finished_at = now
            if now - record.finished_at >= keep and mrid not in listed and mrid not in owed:
                dropped.append(mrid)
        for mrid in dropped:
            del self.records[mrid]
        return dropped

    def _supersede(self, now_of: Callable[[str | None], float]) -> None:
        standing: list[EventRecord] = []
        for record in sorted(self.records.values(), key=lambda r: r.rank):
            if record.final:
                continue
            modes = set(record.control.modes)
            for better in standing:
                overlap = (
                    better.control.start < record.control.end
                    and record.control.start < better.control.end
                )
                if overlap and modes <= set(better.control.modes):
                    self._finish(record, "superseded", SUPERSEDED, now_of(record.fsa))
                    break
            else:
                standing.append(record)

    def _advance(self, record: EventRecord, now: float) -> None:
        if record.final:
            return
        if record.cancel_at is not None and now >= record.cancel_at:
            return self._cancel(record, now)
        if record.state == "scheduled" and now >= record.end:
            # Over without having been seen running (the gateway was down all along).
            return self._finish(record, "expired", EXPIRED, now)
        if record.state == "scheduled" and now >= record.start:
            record.state = "active"
            self._respond(record, STARTED, now)
        if record.state == "active" and now >= record.end:
            self._finish(record, "completed", COMPLETED, now)

    # -- what to hold -----------------------------------------------------------------------

    def active(self) -> list[EventRecord]:
        return sorted(
            (r for r in self.records.values() if r.state == "active"), key=lambda r: r.rank
        )

    def _targets(self, sets: Sequence[ProgramSet]) -> dict[str, Target]:
        targets: dict[str, Target] = {}
        for record in self.active():
            for mode, value in record.control.modes.items():
                targets.setdefault(mode, Target(value, record.mrid, record.program))
        defaults = sorted(
            (s for s in sets if s.default is not None), key=lambda s: s.program.primacy
        )
        if defaults:
            best = defaults[0]
            assert best.default is not None
            for mode, value in best.default.modes.items():
                targets.setdefault(mode, Target(value, "default", best.program.href))
        return targets

    def _next_change(self, now_of: Callable[[str | None], float]) -> float | None:
        """Seconds until the next start or end of an event still to come or running."""
        waits: list[float] = []
        for record in self.records.values():
            if record.final:
                continue
            now = now_of(record.fsa)
            moment = record.start if record.state == "scheduled" else record.end
            waits.append(max(0.0, moment - now))
        return min(waits, default=None)


def by_state(records: Mapping[str, EventRecord], state: str) -> list[str]:
    return sorted(m for m, r in records.items() if r.state == state)
