"""What a READ asks for, as the parts a response is written from, or why it is refused.

Read headers this outstation answers (IEEE 1815-2012 subset level 2, and more):

- class data: g60v1 (class 0: every static point, in group order 1, 3, 10, 20, 21, 30, 40),
  g60v2-v4 (events of class 1-3; qualifier 0x06, or 0x07/0x08 to take at most that many);
- static groups 1, 3, 10, 20, 21, 30, 40 in variation 0 (each point's own) or any variation
  of the group: every point (0x06), a range (0x00/0x01/0x02), or points by index
  (0x17/0x28/0x39);
- event groups 2, 4, 11, 22, 23, 32, 42 in variation 0 or any of the group's event
  variations, all (0x06) or at most a count (0x07/0x08);
- g50v1, the time (0x07 count 1, or 0x06);
- g0, the device attributes, when the database has any (:mod:`.attributes`).

A read with any header it cannot answer is refused whole, with no objects: OBJECT_UNKNOWN
for a group or variation it does not serve, PARAMETER_ERROR for a qualifier the header
cannot take.

A range or a list of indexes that names an index with no point (``range_gaps``, a setting
of the outstation):

- ``refuse`` (the default): the read is refused whole with PARAMETER_ERROR and no objects,
  even when the range holds other points;
- ``answer``: the points there are are returned, the response carrying PARAMETER_ERROR (what
  opendnp3 does); a range with no point at all adds nothing.

PARAMETER_ERROR rather than OBJECT_UNKNOWN: IEEE 1815-2012 keeps IIN2.1 (OBJECT_UNKNOWN) for
an object group or variation the outstation does not support, and IIN2.2 (PARAMETER_ERROR)
for a request whose qualifier, range or data fields are in error; a point index the
outstation does not have is an error of the range field, the group being one it supports.
"""

from __future__ import annotations

from gridwire.dnp3.app.headers import ObjectHeader
from gridwire.dnp3.app.iin import IIN
from gridwire.outstation.attributes import plan_attributes
from gridwire.outstation.config import RangeGaps
from gridwire.outstation.database import Database
from gridwire.outstation.points import (
    BY_EVENT_GROUP,
    BY_STATIC_GROUP,
    POINT_TYPES,
    Point,
    PointType,
)
from gridwire.outstation.refusal import Refused
from gridwire.outstation.responses import AttributePart, EventPart, Part, StaticPart, TimePart

CLASS_OF_VARIATION = {2: 1, 3: 2, 4: 3}
_ALL = 0x06
_COUNTS = frozenset({0x07, 0x08, 0x09})
_RANGES = frozenset({0x00, 0x01, 0x02})
_INDEXED = frozenset({0x17, 0x28, 0x39})


def plan_read(
    database: Database, headers: list[ObjectHeader], gaps: RangeGaps = "refuse"
) -> tuple[list[Part], IIN]:
    """The parts answering these read headers, and the indication the response carries
    (PARAMETER_ERROR for an index with no point when ``gaps`` is ``answer``); :class:`Refused`
    for a header it cannot answer."""
    parts: list[Part] = []
    iin = IIN(0)
    for header in headers:
        planned, missing = _plan(database, header, gaps)
        parts.extend(planned)
        if missing:
            iin |= IIN.PARAMETER_ERROR
    return _merge_classes(parts), iin


def _plan(database: Database, header: ObjectHeader, gaps: RangeGaps) -> tuple[list[Part], bool]:
    """The parts of one header, and whether it named an index with no point."""
    group, variation, qualifier = header.group, header.variation, header.qualifier
    if group in BY_STATIC_GROUP:
        spec = BY_STATIC_GROUP[group]
        if variation and variation not in spec.static_variations:
            raise Refused(IIN.OBJECT_UNKNOWN, f"g{group}v{variation} is not served")
        points, missing = _named(database, spec.type, header)
        if missing and gaps == "refuse":
            raise Refused(IIN.PARAMETER_ERROR, f"{missing} names an index with no point")
        if not points:
            return [], bool(missing)
        part = StaticPart(spec.type, points, variation or None, prefixed=qualifier in _INDEXED)
        return [part], bool(missing)
    return _other(database, header), False


def _named(database: Database, type: PointType, header: ObjectHeader) -> tuple[list[Point], str]:
    """The points of ``type`` a static read header names, and (when it names an index with
    no point) the range or index as a refusal says it; Refused for a qualifier that names no
    points."""
    qualifier, start, stop = header.qualifier, header.start, header.stop
    if qualifier == _ALL:
        return list(database.points(type)), ""
    if qualifier in _RANGES and start is not None and stop is not None:
        points = list(database.points(type, start, stop))
        whole = stop >= start and len(points) == stop - start + 1
        return points, "" if whole else f"{type} {start}..{stop}"
    if qualifier in _INDEXED and header.indices:
        found = [database.point(type, index) for index in header.indices]
        gone = [i for i, p in zip(header.indices, found, strict=True) if p is None]
        return [p for p in found if p is not None], f"{type} {gone[0]}" if gone else ""
    raise Refused(
        IIN.PARAMETER_ERROR, f"g{header.group} cannot be read with qualifier 0x{qualifier:02X}"
    )


def _other(database: Database, header: ObjectHeader) -> list[Part]:
    """The parts of a header that names no static points: a class, events, the time."""
    group, variation, qualifier = header.group, header.variation, header.qualifier
    if group == 60:
        return _class(database, header)
    if group in BY_EVENT_GROUP:
        spec = BY_EVENT_GROUP[group]
        if variation and variation not in spec.event_variations:
            raise Refused(IIN.OBJECT_UNKNOWN, f"g{group}v{variation} is not served")
        limit = _limit(header)
        return [EventPart(frozenset({1, 2, 3}), spec.type, variation or None, limit)]
    if group == 50 and variation in (0, 1):
        if qualifier == _ALL or (qualifier in _COUNTS and header.count == 1):
            return [TimePart()]
        raise Refused(IIN.PARAMETER_ERROR, "the time is read with count 1 or all")
    if group == 0:
        return [AttributePart(plan_attributes(database, header))]
    raise Refused(IIN.OBJECT_UNKNOWN, f"g{group}v{variation} is not served")


def _class(database: Database, header: ObjectHeader) -> list[Part]:
    if header.variation == 1:
        if header.qualifier != _ALL:
            raise Refused(IIN.PARAMETER_ERROR, "class 0 is read with qualifier 0x06")
        return [StaticPart(t, list(database.points(t))) for t in POINT_TYPES if database.count(t)]
    event_class = CLASS_OF_VARIATION.get(header.variation)
    if event_class is None:
        raise Refused(IIN.OBJECT_UNKNOWN, f"g60v{header.variation} is not a class")
    return [EventPart(frozenset({event_class}), limit=_limit(header))]


def _limit(header: ObjectHeader) -> int | None:
    if header.qualifier == _ALL:
        return None
    if header.qualifier in _COUNTS and header.count:
        return header.count
    raise Refused(
        IIN.PARAMETER_ERROR,
        f"events are read with qualifier 0x06 or a count, not 0x{header.qualifier:02X}",
    )


def select_points(database: Database, type: PointType, header: ObjectHeader) -> list[Point]:
    """The points of ``type`` a header names (all, a range, or indexes), for a freeze or a
    class assignment: a range takes the points it holds; Refused when a range holds none, an
    index names no point, or the qualifier names no points."""
    points, missing = _named(database, type, header)
    if missing and (not points or header.qualifier in _INDEXED):
        raise Refused(IIN.PARAMETER_ERROR, f"{missing} names an index with no point")
    return points


def _merge_classes(parts: list[Part]) -> list[Part]:
    """Adjacent class reads without a limit become one part, so their events go out oldest
    first whatever their class."""
    merged: list[Part] = []
    for part in parts:
        previous = merged[-1] if merged else None
        if (
            isinstance(part, EventPart)
            and isinstance(previous, EventPart)
            and part.type is None
            and previous.type is None
            and part.limit is None
            and previous.limit is None
            and part.variation is None
            and previous.variation is None
        ):
            merged[-1] = EventPart(previous.classes | part.classes)
            continue
        merged.append(part)
    return merged
