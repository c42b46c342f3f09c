"""Event buffers: one per event class, retired only by a matching confirm.

An event waits in its class's buffer until a response carries it; the fragment that carries
it holds it (by a token) until the master confirms that fragment, and only then is it
retired. A fragment that is not confirmed (a timeout, a new request, a lost connection)
gives its events back, so the next read reports them again.

When a class's buffer is full, a new event makes room by discarding the oldest event of that
class that no fragment holds (newer values are worth more to a master than older ones; a held
event cannot be taken back from a fragment in flight); when every event of the class is held
the new one is discarded instead. Either way EVENT_BUFFER_OVERFLOW (IIN2.3) is raised, and it
stays raised until confirms leave room again in every class that overflowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from gridwire.outstation.points import PointType, Value


@dataclass(slots=True)
class Event:
    """One change of one point, as it will be reported."""

    id: int
    type: PointType
    index: int
    value: Value
    flags: int
    time_ms: int
    event_class: int
    variation: int
    holder: int | None = None  # token of the fragment carrying it, None while it waits


class EventBuffer:
    """The events of classes 1, 2 and 3, oldest first, with a capacity per class."""

    def __init__(self, capacity: dict[int, int]) -> None:
        for cls in (1, 2, 3):
            if capacity.get(cls, 0) < 1:
                raise ValueError(f"class {cls} event buffer needs room for at least one event")
        self.capacity = dict(capacity)
        self._all: dict[int, Event] = {}
        self._by_class: dict[int, dict[int, Event]] = {1: {}, 2: {}, 3: {}}
        self._overflowed: set[int] = set()
        self._next_id = 0
        self.discarded = 0

    # -- adding ------------------------------------------------------------------------
    def add(
        self,
        type: PointType,
        index: int,
        value: Value,
        flags: int,
        time_ms: int,
        event_class: int,
        variation: int,
    ) -> Event | None:
        """Buffer a new event; returns it, or None when it was discarded for lack of room."""
        bucket = self._by_class[event_class]
        if len(bucket) >= self.capacity[event_class]:
            self._overflowed.add(event_class)
            self.discarded += 1
            victim = next((e for e in bucket.values() if e.holder is None), None)
            if victim is None:
                return None
            self._remove(victim)
        event = Event(self._next_id, type, index, value, flags, time_ms, event_class, variation)
        self._next_id += 1
        self._all[event.id] = event
        bucket[event.id] = event
        return event

    def _remove(self, event: Event) -> None:
        del self._all[event.id]
        del self._by_class[event.event_class][event.id]

    # -- reading -----------------------------------------------------------------------
    def waiting(
        self, classes: Iterable[int] = (1, 2, 3), type: PointType | None = None
    ) -> Iterator[Event]:
        """Events no fragment holds, of the given classes (and type), oldest first."""
        wanted = set(classes)
        for event in self._all.values():
            if (
                event.holder is None
                and event.event_class in wanted
                and (type is None or event.type == type)
            ):
                yield event

    def count(self, event_class: int) -> int:
        """Events of a class not yet retired (waiting or held)."""
        return len(self._by_class[event_class])

    def waiting_count(self, event_class: int) -> int:
        return sum(1 for e in self._by_class[event_class].values() if e.holder is None)

    @property
    def overflow(self) -> bool:
        return bool(self._overflowed)

    def __len__(self) -> int:
        return len(self._all)

    # -- the life of a fragment ----------------------------------------------------------
    @staticmethod
    def hold(events: Iterable[Event], token: int) -> None:
        """Mark events as carried by the fragment ``token``."""
        for event in events:
            event.holder = token

    def retire(self, token: int) -> int:
        """The fragment ``token`` was confirmed: its events are gone. Returns how many."""
        gone = [e for e in self._all.values() if e.holder == token]
        for event in gone:
            self._remove(event)
        for cls in list(self._overflowed):
            if len(self._by_class[cls]) < self.capacity[cls]:
                self._overflowed.discard(cls)
        return len(gone)

    def release(self, token: int | None = None) -> None:
        """The fragment ``token`` (every fragment, for None) will not be confirmed: its events
        wait again, in their original order."""
        for event in self._all.values():
            if event.holder is not None and (token is None or event.holder == token):
                event.holder = None

    def clear(self) -> None:
        """Forget every event (a cold restart)."""
        self._all.clear()
        for bucket in self._by_class.values():
            bucket.clear()
        self._overflowed.clear()
