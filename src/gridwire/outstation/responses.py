"""Filling response fragments from the database: static values, events, the time.

A read is planned as a list of parts (:mod:`.reads`); :class:`FragmentWriter` then fills one
fragment at a time with as much as fits, continuing where the previous fragment stopped.
Static values are read when their fragment is written; events are taken from the buffers
when their fragment is written and held by it (they are retired only when that fragment is
confirmed).

Static points go out in runs of contiguous indexes that share a variation, each run one
start-stop header (0x00/0x01); points a read named by index go out index-prefixed. Events go
out oldest first, consecutive events of one group and variation sharing an index-prefixed
header (0x17/0x28). Relative-time events (g2v3, g4v3) are preceded by a common
time-of-occurrence (g51v1 when the clock was set by a master, else g51v2) and a new one
starts whenever an event's time is not within 65535 ms after it. A read of every event of
a class (no type, no limit) that holds the file events (``files``, D200) carries those after
the points' events, each held and retired as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gridwire.dnp3.objects.encode import Item, encode_objects
from gridwire.dnp3.objects.records import Attribute
from gridwire.dnp3.objects.table import Layout, lookup
from gridwire.outstation.database import Database
from gridwire.outstation.encoding import fitter, fitting
from gridwire.outstation.events import Event
from gridwire.outstation.file_events import FileEvents
from gridwire.outstation.points import TYPES, Point, PointType

_RELATIVE_TIME = frozenset({(2, 3), (4, 3)})
_CTO_SIZE = 3 + 1 + 6  # g51 header with a one-octet count, and one 48-bit time


@dataclass(slots=True)
class StaticPart:
    """Present values of ``points`` (ascending), in ``variation`` or each point's own;
    ``prefixed`` sends them index-prefixed (the read named them by index)."""

    type: PointType
    points: list[Point]
    variation: int | None = None
    prefixed: bool = False
    position: int = 0


@dataclass(slots=True)
class EventPart:
    """Waiting events of ``classes`` (of one ``type`` when given), in ``variation`` or each
    event's own, at most ``limit`` of them."""

    classes: frozenset[int]
    type: PointType | None = None
    variation: int | None = None
    limit: int | None = None
    taken: int = 0
    done: bool = False


@dataclass(slots=True)
class TimePart:
    """The device's time (g50v1)."""

    done: bool = False


@dataclass(slots=True)
class AttributePart:
    """Device attributes (g0): (set, variation, attribute) each its own header, set..set."""

    attributes: list[tuple[int, int, Attribute]]
    position: int = 0


Part = StaticPart | EventPart | TimePart | AttributePart


@dataclass(slots=True)
class Written:
    """One fragment's objects and the events it holds."""

    body: bytes
    events: list[Event] = field(default_factory=list)
    files: int = 0  # file events it holds

    @property
    def holds(self) -> bool:
        """Whether the fragment carries events (so asks for a confirm)."""
        return bool(self.events) or self.files > 0


class FragmentWriter:
    """Writes the parts of a read into fragments of at most ``room`` object octets."""

    def __init__(
        self,
        database: Database,
        parts: list[Part],
        room: int,
        now: float,
        files: FileEvents | None = None,
    ) -> None:
        self.database = database
        self.files = files
        self.parts = parts
        self.room = room
        self.now = now
        self._index = 0
        self._token = 0

    @property
    def done(self) -> bool:
        return self._index >= len(self.parts)

    def write(self, token: int, now: float) -> Written:
        """The next fragment's objects; its events are held under ``token``."""
        self.now = now
        self._token = token
        out = Written(b"")
        chunks: list[bytes] = []
        left = self.room
        while self._index < len(self.parts):
            part = self.parts[self._index]
            if isinstance(part, StaticPart):
                left = self._static(part, chunks, left)
                finished = part.position >= len(part.points)
            elif isinstance(part, AttributePart):
                left = self._attributes(part, chunks, left)
                finished = part.position >= len(part.attributes)
            elif isinstance(part, EventPart):
                left = self._events(part, chunks, left, out)
                finished = part.done
            else:
                left = self._time(part, chunks, left)
                finished = part.done
            if not finished:
                break
            self._index += 1
        out.body = b"".join(chunks)
        return out

    # -- static values -------------------------------------------------------------------
    def _static(self, part: StaticPart, chunks: list[bytes], left: int) -> int:
        spec = TYPES[part.type]
        group = spec.static_group
        points = part.points
        while part.position < len(points):
            first = points[part.position]
            variation = part.variation or first.static_variation
            if part.prefixed and _packed(group, variation):
                variation = spec.default_static  # packed objects cannot carry an index
            width = _prefix_width(points) if part.prefixed else 0
            capacity = fitting(group, variation, left, width)
            if capacity <= 0:
                return left
            own = part.variation is None
            stop = min(len(points), part.position + capacity)
            end = part.position + 1
            while end < stop:
                point = points[end]
                if own and point.static_variation != first.static_variation:
                    break
                if not part.prefixed and point.index != points[end - 1].index + 1:
                    break
                end += 1
            run = points[part.position : end]
            items = _items(group, variation, run)
            qualifier = (0x17 if width == 1 else 0x28 if width == 2 else 0x39) if width else None
            octets = encode_objects(group, variation, items, qualifier)
            chunks.append(octets)
            left -= len(octets)
            part.position += len(run)
        return left

    # -- events --------------------------------------------------------------------------
    def _events(self, part: EventPart, chunks: list[bytes], left: int, out: Written) -> int:
        held = out.events
        waiting = self.database.events.waiting(part.classes, part.type)
        pending: Event | None = next(waiting, None)
        while pending is not None:
            if part.limit is not None and part.taken >= part.limit:
                break
            group = TYPES[pending.type].event_group
            variation = part.variation or pending.variation
            relative = (group, variation) in _RELATIVE_TIME
            room = left - (_CTO_SIZE if relative else 0)
            capacity = fitting(group, variation, room, 2)
            if capacity <= 0:
                return left
            if part.limit is not None:
                capacity = min(capacity, part.limit - part.taken)
            cto = pending.time_ms if relative else None
            run = [pending]
            pending = next(waiting, None)
            while pending is not None and len(run) < capacity:
                if TYPES[pending.type].event_group != group:
                    break
                if (part.variation or pending.variation) != variation:
                    break
                if cto is not None and not 0 <= pending.time_ms - cto <= 0xFFFF:
                    break
                run.append(pending)
                pending = next(waiting, None)
            if cto is not None:
                synchronized = self.database.clock.synchronized
                octets = encode_objects(51, 1 if synchronized else 2, [Item(None, cto)])
                chunks.append(octets)
                left -= len(octets)
            items = _items(group, variation, run)
            octets = encode_objects(group, variation, items, cto_ms=cto)
            chunks.append(octets)
            left -= len(octets)
            self.database.events.hold(run, self._token)
            held.extend(run)
            part.taken += len(run)
        files = self.files
        whole_class = part.type is None and part.limit is None
        if files is not None and whole_class and files.event_class in part.classes:
            return self._files(files, part, chunks, left, out)
        part.done = True
        return left

    def _files(
        self, files: FileEvents, part: EventPart, chunks: list[bytes], left: int, out: Written
    ) -> int:
        """The waiting file events after the points' (D200); one too long for any fragment
        stays unsent rather than stop the read."""
        while (octets := files.take(self._token, left)) is not None:
            chunks.append(octets)
            left -= len(octets)
            out.files += 1
        part.done = not files.waiting() or left == self.room
        return left

    # -- device attributes ---------------------------------------------------------------
    def _attributes(self, part: AttributePart, chunks: list[bytes], left: int) -> int:
        while part.position < len(part.attributes):
            attribute_set, variation, attribute = part.attributes[part.position]
            octets = encode_objects(0, variation, [Item(attribute_set, attribute)])
            if len(octets) > left and (chunks or len(octets) <= self.room):
                return left  # the next fragment (one too long for any goes out alone)
            chunks.append(octets)
            left -= len(octets)
            part.position += 1
        return left

    # -- time ----------------------------------------------------------------------------
    def _time(self, part: TimePart, chunks: list[bytes], left: int) -> int:
        octets = encode_objects(50, 1, [Item(None, self.database.clock.ms(self.now))])
        if len(octets) > left:
            return left
        chunks.append(octets)
        part.done = True
        return left - len(octets)


def _packed(group: int, variation: int) -> bool:
    decl = lookup(group, variation)
    return decl is not None and decl.layout is Layout.PACKED


def _prefix_width(points: list[Point]) -> int:
    highest = max(max(p.index for p in points), len(points))
    return 1 if highest <= 0xFF else 2 if highest <= 0xFFFF else 4


def _items(group: int, variation: int, sources: Sequence[Point | Event]) -> list[Item]:
    """Points or events as items of group/variation, values fitted to it."""
    fit = fitter(group, variation)
    items = []
    for source in sources:
        value, flags = fit(source.value, source.flags)
        items.append(Item(source.index, value, flags, source.time_ms or 0))
    return items
