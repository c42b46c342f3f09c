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
from itertools import repeat

from gridwire.dnp3.app.fragments import Response
from gridwire.dnp3.objects.records import DnpObject
from gridwire.master.records import StoredValue

NameOf = Callable[[str, int], str | None]
"""A point map's naming of a point: (type, index) -> name, or None for an unnamed point."""


def no_names(point_type: str, index: int) -> None:
    """The naming of an outstation without a point map."""
    return None


def name_objects(objects: Iterable[DnpObject], name_of: NameOf) -> None:
    """Fill ``name`` of every point object in place from a point map's naming."""
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


# A column's lists may hold this many never-reported indexes, or as many as it has points.
_SLACK = 1024


class _Column:
    """The points of one type: index -> (latest object, monotonic arrival).

    Indexes from 0 up are held in two lists (``objects[i]`` is None for an index never
    reported: a hole), so a run of consecutive points is stored by two slice assignments.
    An index that would leave the lists with more holes than points (and more than
    ``_SLACK``) is held in ``sparse`` instead, and so is a negative one; every other key of
    ``sparse`` is at least ``len(objects)``.
    """

    __slots__ = ("arrived", "holes", "objects", "sparse")

    def __init__(self) -> None:
        self.objects: list[DnpObject | None] = []
        self.arrived: list[float] = []
        self.holes = 0
        self.sparse: dict[int, tuple[DnpObject, float]] = {}

    def __len__(self) -> int:
        return len(self.objects) - self.holes + len(self.sparse)

    def get(self, index: int) -> tuple[DnpObject, float] | None:
        if 0 <= index < len(self.objects):
            obj = self.objects[index]
            return None if obj is None else (obj, self.arrived[index])
        return self.sparse.get(index)

    def items(self) -> list[tuple[int, DnpObject, float]]:
        """(index, object, arrival) of every point, by index."""
        arrived = self.arrived
        dense = [(i, obj, arrived[i]) for i, obj in enumerate(self.objects) if obj is not None]
        aside = [(i, *self.sparse[i]) for i in sorted(self.sparse)]
        below = [entry for entry in aside if entry[0] < 0]
        return below + dense + aside[len(below) :]

    def _grow(self, end: int, start: int) -> bool:
        """Extend the lists to ``end`` for new points from ``start`` (at least the present
        length) if they stay dense enough; False when those points belong in ``sparse``."""
        size = len(self.objects)
        gap = start - size
        if self.holes + gap > max(_SLACK, size - self.holes + end - start):
            return False
        self.objects.extend(repeat(None, end - size))
        self.arrived.extend(repeat(0.0, end - size))
        self.holes += gap
        if self.sparse:
            for index in [i for i in self.sparse if size <= i < end]:
                obj, arrived = self.sparse.pop(index)
                if index < start:  # fills a hole; from start on, the new points replace it
                    self.objects[index], self.arrived[index] = obj, arrived
                    self.holes -= 1
        return True

    def put(self, index: int, obj: DnpObject, now: float) -> None:
        if 0 <= index < len(self.objects):
            if self.objects[index] is None:
                self.holes -= 1
        elif index < 0 or not self._grow(index + 1, index):
            self.sparse[index] = (obj, now)
            return
        self.objects[index] = obj
        self.arrived[index] = now

    def put_run(self, start: int, objects: list[DnpObject], now: float) -> None:
        """``objects`` are the points ``start``, ``start + 1``..."""
        end = start + len(objects)
        size = len(self.objects)
        if start < 0 or (end > size and not self._grow(end, max(start, size))):
            for index, obj in enumerate(objects, start):
                self.put(index, obj, now)
            return
        if self.holes and start < size:
            self.holes -= self.objects[start : min(end, size)].count(None)
        self.objects[start:end] = objects
        self.arrived[start:end] = [now] * len(objects)


class ValueStore:
    """The latest value per (type, index), with when it arrived (monotonic seconds).

    The points of a type are kept in lists by index where they are dense (``_Column``), so
    the objects of a start-stop header (:meth:`update_run`) are stored by two C-level slice
    assignments: no Python code and nothing allocated per object, where a 9000-point
    integrity poll would otherwise pay a dictionary entry per point (and a key and a tuple
    for the garbage collector to trace).
    """

    __slots__ = ("_columns", "name_of")

    def __init__(self, name_of: NameOf = no_names) -> None:
        self.name_of = name_of
        self._columns: dict[str, _Column] = {}

    def __len__(self) -> int:
        return sum(map(len, self._columns.values()))

    def _column(self, point_type: str) -> _Column:
        column = self._columns.get(point_type)
        if column is None:
            column = self._columns[point_type] = _Column()
        return column

    def update(self, objects: Iterable[DnpObject], now: float) -> int:
        """Keep every point object of ``objects`` (in order: a later one replaces an earlier
        one of the same point); ``now`` is the monotonic time they arrived. Returns how many
        were kept."""
        kept = 0
        for obj in objects:
            point_type = obj.type
            index = obj.index
            if point_type is not None and index is not None:
                self._column(point_type).put(index, obj, now)
                kept += 1
        return kept

    def update_run(self, point_type: str, start: int, objects: list[DnpObject], now: float) -> int:
        """Keep ``objects``, which are the points ``start``, ``start + 1``... of
        ``point_type`` (the objects of one start-stop header), as :meth:`update` would.
        Returns how many were kept."""
        if objects:
            self._column(point_type).put_run(start, objects, now)
        return len(objects)

    def get(self, point_type: str, index: int, now: float | None = None) -> StoredValue | None:
        """The point as it stands, or None when it was never reported. ``now`` (monotonic
        seconds) gives the age; without it the age is 0."""
        column = self._columns.get(point_type)
        entry = column.get(index) if column is not None else None
        if entry is None:
            return None
        obj, arrived = entry
        age = 0.0 if now is None else max(0.0, (now - arrived) * 1000.0)
        return _stored(point_type, index, self.name_of(point_type, index), obj, age)

    def values(self, now: float) -> list[StoredValue]:
        """Every point as it stands, by type then index; ages as of ``now``."""
        name_of = self.name_of
        out = []
        for point_type in sorted(self._columns):
            for index, obj, arrived in self._columns[point_type].items():
                age = (now - arrived) * 1000.0
                name = name_of(point_type, index)
                out.append(_stored(point_type, index, name, obj, age if age > 0.0 else 0.0))
        return out

    def clear(self) -> int:
        """Forget every value; the number forgotten."""
        count = len(self)
        self._columns.clear()
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


def keep(response: Response, store: ValueStore, events: EventLog, now: float) -> None:
    """The response's objects into the value store and the event log, header by header.
    A header's objects all come from one variation, so the first says whether they are
    points and events; those of a start-stop header are the points start, start + 1...
    (as the decoder builds them), stored as one run."""
    for header in response.headers:
        objects = header.objects
        if not objects:
            continue
        first = objects[0]
        if first.event:
            events.add(objects)
        if first.type is None:
            continue
        if header.start is not None:
            store.update_run(first.type, header.start, objects, now)
        else:
            store.update(objects, now)
