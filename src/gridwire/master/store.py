"""What the master has read from one outstation: the latest value of every point, and a
bounded log of the events received.

:class:`ValueStore` keeps, per (type, index), the last object reported for the point (from a
static read or an event, whichever came last) and the monotonic time it arrived; the
``values`` operation turns them into :class:`StoredValue` records with their age.
:class:`EventLog` keeps the last ``limit`` events in arrival order, each numbered by a running
sequence that survives dropping and clearing, so ``wait_for`` can ask for what came after a
moment. Both are plain data structures for one asyncio loop; nothing here sends anything.

Objects that are not a point's value (type None: times, CTOs, commands, attributes...) and
objects without an index are not stored.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.records import StoredValue

NameOf = Callable[[str, int], str | None]
"""A profile's naming of a point: (type, index) -> name, or None for an unnamed point."""


def no_names(point_type: str, index: int) -> None:
    """The naming of an outstation without a profile."""
    return None


def name_objects(objects: Iterable[DnpObject], name_of: NameOf) -> None:
    """Fill ``name`` of every point object in place from a profile's naming."""
    for obj in objects:
        if obj.type is not None and obj.index is not None:
            obj.name = name_of(obj.type, obj.index)


def _stored(
    point_type: str, index: int, name: str | None, obj: DnpObject, age: float
) -> StoredValue:
    return StoredValue(
        point_type,
        index,
        name,
        obj.value,
        obj.flags,
        obj.time_ms,
        obj.event,
        obj.group,
        obj.variation,
        age,
    )


class ValueStore:
    """The latest value per (type, index), with when it arrived (monotonic seconds)."""

    __slots__ = ("_points", "name_of")

    def __init__(self, name_of: NameOf = no_names) -> None:
        self.name_of = name_of
        self._points: dict[tuple[str, int], tuple[DnpObject, float]] = {}

    def __len__(self) -> int:
        return len(self._points)

    def update(self, objects: Iterable[DnpObject], now: float) -> int:
        """Keep every point object of ``objects`` (in order: a later one replaces an earlier
        one of the same point); ``now`` is the monotonic time they arrived. Returns how many
        were kept."""
        points = self._points
        kept = 0
        for obj in objects:
            point_type = obj.type
            index = obj.index
            if point_type is None or index is None:
                continue
            points[(point_type, index)] = (obj, now)
            kept += 1
        return kept

    def get(self, point_type: str, index: int, now: float | None = None) -> StoredValue | None:
        """The point as it stands, or None when it was never reported. ``now`` (monotonic
        seconds) gives the age; without it the age is 0."""
        entry = self._points.get((point_type, index))
        if entry is None:
            return None
        obj, arrived = entry
        age = 0.0 if now is None else max(0.0, (now - arrived) * 1000.0)
        return _stored(point_type, index, self.name_of(point_type, index), obj, age)

    def values(self, now: float) -> list[StoredValue]:
        """Every point as it stands, by type then index; ages as of ``now``."""
        points = self._points
        name_of = self.name_of
        out = []
        for key in sorted(points):
            point_type, index = key
            obj, arrived = points[key]
            age = (now - arrived) * 1000.0
            name = name_of(point_type, index)
            out.append(_stored(point_type, index, name, obj, age if age > 0.0 else 0.0))
        return out

    def clear(self) -> int:
        """Forget every value; the number forgotten."""
        count = len(self._points)
        self._points.clear()
        return count


class EventLog:
    """The last ``limit`` events received, oldest first, each with a running sequence
    number (the first event logged is 1)."""

    __slots__ = ("_entries", "_last", "limit")

    def __init__(self, limit: int = 10_000) -> None:
        if limit < 1:
            raise ValueError(f"an event log holds at least one event, not {limit}")
        self.limit = limit
        self._entries: deque[tuple[int, DnpObject]] = deque(maxlen=limit)
        self._last = 0

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, objects: Iterable[DnpObject]) -> int:
        """Log the events among ``objects`` (those with ``event`` true), dropping the oldest
        beyond the limit; how many were logged."""
        entries = self._entries
        last = self._last
        for obj in objects:
            if obj.event:
                last += 1
                entries.append((last, obj))
        added = last - self._last
        self._last = last
        return added

    def mark(self) -> int:
        """The sequence number of the latest event logged (0 before any): pass it to
        :meth:`after` to get only what arrives later."""
        return self._last

    def items(self) -> list[DnpObject]:
        """Every event kept, oldest first."""
        return [obj for _, obj in self._entries]

    def after(self, mark: int) -> list[DnpObject]:
        """The events kept that were logged after ``mark``, oldest first."""
        if mark >= self._last:
            return []
        out: list[DnpObject] = []
        for seq, obj in reversed(self._entries):
            if seq <= mark:
                break
            out.append(obj)
        out.reverse()
        return out

    def clear(self) -> int:
        """Forget every event kept (the running sequence goes on); the number forgotten."""
        count = len(self._entries)
        self._entries.clear()
        return count
